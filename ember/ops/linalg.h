#pragma once
// Argument checks of the matrix products (ops_linalg.yaml), shared by their CPU kernels and by the composites
// that call them (matmul checks the operands it is about to pass, so its errors are named after it rather
// than after the op it calls). Each raises PyTorch 1.13's message for the same mistake, prefixed with `op`,
// in PyTorch's order of checks.
#include <string_view>

#include "ember/core/Tensor.h"

namespace ember::linalg {

/// mm(self, mat2): both 2-D ("self must be a matrix"), self.size(1) == mat2.size(0) ("mat1 and mat2 shapes
/// cannot be multiplied (2x3 and 2x3)"), the same dtype ("expected scalar type Float but found Double").
void check_mm(std::string_view op, const Tensor& self, const Tensor& mat2);
/// bmm(batch1, batch2): both 3-D, batch2's first two sizes equal (batch1.size(0), batch1.size(2)), the same dtype.
void check_bmm(std::string_view op, const Tensor& batch1, const Tensor& batch2);
/// mv(self, vec): self 2-D and vec 1-D ("vector + matrix @ vector expected, got 1, 2, 2"), self.size(1) ==
/// vec.size(0) ("size mismatch, got 2, 2x3,2"), the same dtype. A 0-dim self raises IndexError, as PyTorch.
void check_mv(std::string_view op, const Tensor& self, const Tensor& vec);
/// dot(self, other): both 1-D ("1D tensors expected, but got 2D and 1D tensors"), the same dtype ("expected
/// both vectors to have same dtype, but found Float and Double"), the same size.
void check_dot(std::string_view op, const Tensor& self, const Tensor& other);
/// An out= tensor of a matrix product must have the result's dtype ("Expected out tensor to have dtype float,
/// but got double instead").
void check_out_dtype(std::string_view op, const Tensor& out, DType result);

/// dot's out= tensor must have the inputs' dtype ("result dtype Double does not match input dtype Float").
void check_dot_out_dtype(std::string_view op, const Tensor& out, DType input);

/// Resizes an out= tensor to sizes when its shape differs, keeping its strides when it is right (PyTorch's
/// resize_output).
void resize_output(const Tensor& out, IntArrayRef sizes);

/// PyTorch's ScalarType name of a dtype, as its messages print it: "Float", "Double", "Long", "Half", ...
std::string_view scalar_type_name(DType dtype);
/// PyTorch's C++ type name of a dtype (caffe2::TypeMeta): "float", "double", "long int", "c10::Half", ...
std::string_view type_meta_name(DType dtype);

/// The checks PyTorch 1.13 makes on a LAPACK-backed op's matrix argument, in its order and with its messages
/// (`op` is the name PyTorch prints, "linalg.inv"): at least 2 dims ("The input tensor A must have at least 2
/// dimensions."), a floating dtype ("Expected a floating point or complex tensor as input. Got Long"; float16
/// and bfloat16: "Low precision dtypes not supported. Got Half"), and when `square` batches of square matrices
/// ("A must be batches of square matrices, but they are 2 by 3 matrices"). `name` is the argument's name.
void check_lapack_input(std::string_view op, const Tensor& A, bool square, std::string_view name = "A");
/// Raises for the nonzero entries of a LAPACK info tensor as PyTorch's _linalg_check_errors does: the message
/// depends on the routine named by `api` ("inv": a zero diagonal element; "solve": singular; "cholesky": not
/// positive-definite; "svd", "eig": no convergence; "lu_factor": a zero U[i, i], RuntimeError), prefixed with
/// "(Batch element i)" when info has a batch. LinAlgError (ErrorKind::LinAlg) except where PyTorch raises
/// RuntimeError.
void check_lapack_info(std::string_view api, const Tensor& info);

}  // namespace ember::linalg
