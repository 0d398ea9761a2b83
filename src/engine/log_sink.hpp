// Where the engine's log lines go; the daemon plugs spdlog in, tests collect them. The
// engine never logs witness data: lines carry job ids, circuit ids, sizes and timings.
#pragma once

#include <functional>
#include <string>

namespace cuzk::engine {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
using LogSink = std::function<void(LogLevel, const std::string&)>;

}  // namespace cuzk::engine
