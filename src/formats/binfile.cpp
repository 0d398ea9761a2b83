#include "formats/binfile.hpp"

#include <cerrno>

namespace cuzk::formats {

namespace {
constexpr size_t kFileHeader = 12;     // magic, version, nSections
constexpr size_t kSectionHeader = 12;  // id, size
}  // namespace

Result<BinFile> BinFile::parse(std::span<const uint8_t> bytes, std::string label, std::string_view magic,
                               uint32_t min_version, uint32_t max_version, SectionNamer namer) {
  BinFile f;
  f.bytes_ = bytes;
  f.label_ = std::move(label);
  f.namer_ = namer;
  if (bytes.size() < kFileHeader) {
    return data_loss(f.label_ + ": file is " + std::to_string(bytes.size()) +
                     " bytes, too short for a binfile header (12 bytes)");
  }
  if (std::memcmp(bytes.data(), magic.data(), 4) != 0) {
    std::string got;
    for (int i = 0; i < 4; ++i) {
      char c = char(bytes[i]);
      got += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return invalid_argument(f.label_ + ": bad magic \"" + got + "\", expected \"" + std::string(magic) + "\"");
  }
  f.version_ = load_u32(bytes.data() + 4);
  if (f.version_ < min_version || f.version_ > max_version) {
    return invalid_argument(f.label_ + ": unsupported " + std::string(magic) + " version " +
                            std::to_string(f.version_) + " (supported: " + std::to_string(min_version) +
                            (min_version == max_version ? "" : ".." + std::to_string(max_version)) + ")");
  }
  uint32_t n = load_u32(bytes.data() + 8);
  uint64_t pos = kFileHeader;
  for (uint32_t i = 0; i < n; ++i) {
    if (bytes.size() - pos < kSectionHeader) {
      return data_loss(f.label_ + ": truncated: header of section entry " + std::to_string(i) + " of " +
                       std::to_string(n) + " at offset " + std::to_string(pos) + " is past the end of the file (" +
                       std::to_string(bytes.size()) + " bytes)");
    }
    BinSection s;
    s.id = load_u32(bytes.data() + pos);
    s.size = load_u64(bytes.data() + pos + 4);
    s.offset = pos + kSectionHeader;
    if (s.size > bytes.size() - s.offset) {
      return data_loss(f.where(s.id) + ": declares " + std::to_string(s.size) + " bytes at offset " +
                       std::to_string(s.offset) + " but the file has only " +
                       std::to_string(bytes.size() - s.offset) + " bytes left (truncated file?)");
    }
    if (f.find(s.id) != nullptr) return data_loss(f.where(s.id) + ": appears more than once");
    f.sections_.push_back(s);
    pos = s.offset + s.size;
  }
  if (pos != bytes.size()) {
    return data_loss(f.label_ + ": " + std::to_string(bytes.size() - pos) + " trailing bytes after the last of " +
                     std::to_string(n) + " sections");
  }
  return f;
}

const BinSection* BinFile::find(uint32_t id) const {
  for (const BinSection& s : sections_) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

std::string BinFile::where(uint32_t id) const {
  std::string w = label_ + ": section " + std::to_string(id);
  const char* name = namer_ ? namer_(id) : nullptr;
  if (name != nullptr) w += std::string(" (") + name + ")";
  return w;
}

Result<std::span<const uint8_t>> BinFile::section(uint32_t id) const {
  const BinSection* s = find(id);
  if (s == nullptr) return data_loss(label_ + ": missing " + where(id).substr(label_.size() + 2));
  return bytes_.subspan(s->offset, s->size);
}

Status SectionReader::need(size_t n, const char* field) const {
  if (remaining() >= n) return Status::ok();
  return error(std::string("truncated reading ") + field + " (needs " + std::to_string(n) + " bytes at offset " +
               std::to_string(pos_) + ", section has " + std::to_string(data_.size()) + ")");
}

Status SectionReader::u32(uint32_t& out, const char* field) {
  CUZK_RETURN_IF_ERROR(need(4, field));
  out = load_u32(data_.data() + pos_);
  pos_ += 4;
  return Status::ok();
}

Status SectionReader::u64(uint64_t& out, const char* field) {
  CUZK_RETURN_IF_ERROR(need(8, field));
  out = load_u64(data_.data() + pos_);
  pos_ += 8;
  return Status::ok();
}

Status SectionReader::u8(uint8_t& out, const char* field) {
  CUZK_RETURN_IF_ERROR(need(1, field));
  out = data_[pos_++];
  return Status::ok();
}

Status SectionReader::bytes(size_t n, std::span<const uint8_t>& out, const char* field) {
  CUZK_RETURN_IF_ERROR(need(n, field));
  out = data_.subspan(pos_, n);
  pos_ += n;
  return Status::ok();
}

Status SectionReader::skip(size_t n, const char* field) {
  CUZK_RETURN_IF_ERROR(need(n, field));
  pos_ += n;
  return Status::ok();
}

Status SectionReader::expect_end() const {
  if (remaining() == 0) return Status::ok();
  return error("has " + std::to_string(remaining()) + " trailing bytes (size " + std::to_string(data_.size()) +
               ", content ends at " + std::to_string(pos_) + ")");
}

BinWriter::~BinWriter() {
  if (fp_ != nullptr) std::fclose(fp_);
}

Status BinWriter::io_error(const char* what) const {
  return Status(StatusCode::kResourceExhausted, path_ + ": " + what + " failed: " + std::strerror(errno));
}

Status BinWriter::open(const std::string& path, std::string_view magic, uint32_t version, uint32_t n_sections) {
  if (fp_ != nullptr) return failed_precondition(path_ + ": writer already open");
  if (magic.size() != 4) return invalid_argument("binfile magic must be 4 characters");
  path_ = path;
  fp_ = std::fopen(path.c_str(), "wb");
  if (fp_ == nullptr) return invalid_argument(path + ": cannot create: " + std::strerror(errno));
  declared_ = n_sections;
  CUZK_RETURN_IF_ERROR(write(magic.data(), 4));
  CUZK_RETURN_IF_ERROR(write_u32(version));
  return write_u32(n_sections);
}

Status BinWriter::begin_section(uint32_t id) {
  if (fp_ == nullptr || in_section_) return failed_precondition(path_ + ": begin_section out of order");
  if (written_ == declared_) {
    return failed_precondition(path_ + ": more sections than the " + std::to_string(declared_) + " declared");
  }
  CUZK_RETURN_IF_ERROR(write_u32(id));
  section_start_ = std::ftell(fp_);
  if (section_start_ < 0) return io_error("ftell");
  CUZK_RETURN_IF_ERROR(write_u64(0));
  in_section_ = true;
  section_size_ = 0;
  return Status::ok();
}

Status BinWriter::write(const void* data, size_t n) {
  if (fp_ == nullptr) return failed_precondition(path_ + ": writer not open");
  if (n != 0 && std::fwrite(data, 1, n, fp_) != n) return io_error("write");
  if (in_section_) section_size_ += n;
  return Status::ok();
}

Status BinWriter::write_zeros(size_t n) {
  static const uint8_t kZeros[256] = {};
  while (n > 0) {
    size_t k = n < sizeof(kZeros) ? n : sizeof(kZeros);
    CUZK_RETURN_IF_ERROR(write(kZeros, k));
    n -= k;
  }
  return Status::ok();
}

Status BinWriter::end_section() {
  if (!in_section_) return failed_precondition(path_ + ": end_section without begin_section");
  in_section_ = false;
  long end = std::ftell(fp_);
  if (end < 0) return io_error("ftell");
  if (std::fseek(fp_, section_start_, SEEK_SET) != 0) return io_error("seek");
  uint64_t size = section_size_;
  if (std::fwrite(&size, 1, 8, fp_) != 8) return io_error("write");
  if (std::fseek(fp_, end, SEEK_SET) != 0) return io_error("seek");
  ++written_;
  return Status::ok();
}

Status BinWriter::close() {
  if (fp_ == nullptr) return failed_precondition(path_ + ": writer not open");
  if (in_section_) return failed_precondition(path_ + ": close inside a section");
  FILE* fp = fp_;
  fp_ = nullptr;
  if (written_ != declared_) {
    std::fclose(fp);
    return failed_precondition(path_ + ": wrote " + std::to_string(written_) + " sections, declared " +
                               std::to_string(declared_));
  }
  if (std::fclose(fp) != 0) return io_error("close");
  return Status::ok();
}

}  // namespace cuzk::formats
