#include "cuda/arith.hpp"

namespace cuzk::cuda {

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
  }
  return "?";
}

const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::kSquare: return "square";
    case UnaryOp::kInverse: return "inverse";
  }
  return "?";
}

}  // namespace cuzk::cuda
