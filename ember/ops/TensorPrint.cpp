#include "ember/ops/TensorPrint.h"

#include <cmath>
#include <iomanip>
#include <ostream>

#include "ember/ops/Functions.h"
#include "ember/ops/linalg.h"

namespace ember {

PrintOptions& print_options() {
  static PrintOptions o;
  return o;
}

namespace {

// Reads every element in row-major order as long double, which holds every int64 and double exactly.
std::vector<long double> values_of(const Tensor& t) {
  std::vector<long double> r(static_cast<size_t>(t.numel()));
  if (is_floating_point(t.dtype())) {
    Tensor c = t.to(kFloat64).contiguous();
    std::copy(c.data_ptr<double>(), c.data_ptr<double>() + c.numel(), r.begin());
  } else {
    Tensor c = t.to(kInt64).contiguous();
    std::copy(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel(), r.begin());
  }
  return r;
}

// Note [print only the edges]
// A summarised tensor (numel > threshold) shows edgeitems at each end of every dim, so only those are read:
// rows are narrowed to their edges before values_of() copies them, and dims are walked with views. Printing
// is O(edgeitems^ndim) whatever the size, as PyTorch's get_summarized_data; a 2**62-element expand() prints.
//
// The values a 1-D row shows, in order: all of it, or its first and last `edge` when summarised.
std::vector<long double> row_values(const Tensor& row, bool summarize, int64_t edge) {
  int64_t n = row.size(0);
  if (!summarize || n <= 2 * edge) return values_of(row);
  std::vector<long double> v = values_of(row.narrow(0, 0, edge));
  std::vector<long double> tail = values_of(row.narrow(0, n - edge, edge));
  v.insert(v.end(), tail.begin(), tail.end());
  return v;
}

// The values that will be shown (edgeitems at each end of every dim when summarising), for choosing the
// format. See Note [print only the edges].
void shown_values(const Tensor& t, bool summarize, int64_t edge, std::vector<long double>& out) {
  if (t.dim() <= 1) {
    std::vector<long double> v = t.dim() == 0 ? values_of(t) : row_values(t, summarize, edge);
    out.insert(out.end(), v.begin(), v.end());
    return;
  }
  int64_t n = t.size(0);
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * edge && i == edge) i = n - edge;
    if (i >= n) break;
    shown_values(t.select(0, i), summarize, edge, out);
  }
}

// Floating values are formatted as double, which holds every value of a floating tensor exactly: fmt 9's
// fixed-precision formatting of long double is wrong for small values ("{:.4f}" of 1e-5L gives
// "0.00000999999974737875163555", fmtlib/fmt#3539, fixed in fmt 10.1).
class Formatter {
 public:
  Formatter(DType dtype, const std::vector<long double>& v, const PrintOptions& o) : dtype_(dtype), o_(o) {
    floating_ = is_floating_point(dtype_);
    if (!floating_) {
      for (long double x : v) width_ = std::max<size_t>(width_, plain(x).size());
      return;
    }
    std::vector<long double> nz;
    for (long double x : v)
      if (std::isfinite(x) && x != 0) nz.push_back(x);
    if (!nz.empty()) {
      long double lo = std::abs(nz[0]), hi = lo;
      for (long double x : nz) {
        lo = std::min(lo, std::abs(x));
        hi = std::max(hi, std::abs(x));
        if (x != std::ceil(x)) int_mode_ = false;
      }
      if (int_mode_) {
        sci_ = hi / lo > 1000.0L || hi > 1.0e8L;
        for (long double x : nz)
          width_ = std::max(width_, sci_ ? sci(x).size() : fmt::format("{:.0f}", static_cast<double>(x)).size() + 1);
      } else {
        sci_ = hi / lo > 1000.0L || hi > 1.0e8L || lo < 1.0e-4L;
        for (long double x : nz)
          width_ = std::max(width_,
                            sci_ ? sci(x).size() : fmt::format("{:.{}f}", static_cast<double>(x), o_.precision).size());
      }
      // Only with a nonzero finite value, as PyTorch's _Formatter (zeros, NaN and inf alone print as "0.",
      // "nan", "inf" even with sci_mode=True).
      if (o_.sci_mode) sci_ = *o_.sci_mode;
    }
  }
  size_t width() const { return width_; }

  std::string format(long double x) const {
    std::string s;
    if (floating_) {
      if (sci_) s = sci(x);
      else if (int_mode_) {
        s = special(x);
        if (s.empty()) s = fmt::format("{:.0f}", static_cast<double>(x)) + ".";
      } else {
        s = special(x);
        if (s.empty()) s = fmt::format("{:.{}f}", static_cast<double>(x), o_.precision);
      }
    } else {
      s = plain(x);
    }
    return s.size() < width_ ? std::string(width_ - s.size(), ' ') + s : s;
  }

 private:
  static std::string special(long double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return "";
  }
  std::string sci(long double x) const {
    std::string s = special(x);
    return s.empty() ? fmt::format("{:.{}e}", static_cast<double>(x), o_.precision) : s;
  }
  std::string plain(long double x) const {
    if (dtype_ == kBool) return x != 0 ? "True" : "False";
    return fmt::format("{}", static_cast<int64_t>(x));
  }

  DType dtype_;
  const PrintOptions& o_;
  bool floating_ = false, int_mode_ = true, sci_ = false;
  size_t width_ = 1;
};

// Note [printing complex tensors]
// As PyTorch's _tensor_str: the real parts and the imaginary parts each get a formatter of their own (chosen
// from the shown values of that part), and an element prints as real + imag + "j", the imaginary part's
// padding stripped and a "+" put in when its text has no sign ("1.+2.j", "nan-infj", "0.0000e+00+1.j").
// Formatting walks the tensor's real view; `im`, when set, is the matching imaginary view.
struct Parts {
  const Formatter& re;
  const Formatter* im = nullptr;  // null for a real tensor
  size_t width() const { return re.width() + (im ? im->width() + 1 : 0); }
  std::string format(long double r, long double i) const {
    std::string rs = re.format(r);
    if (!im) return rs;
    std::string is = im->format(i) + "j";
    is.erase(0, is.find_first_not_of(' '));
    return rs + (is[0] == '+' || is[0] == '-' ? "" : "+") + is;
  }
};

// The real (part 0) or imaginary (part 1) view of a complex tensor.
Tensor complex_part(const Tensor& t, int part) {
  DimVector strides(t.strides().begin(), t.strides().end());
  for (int64_t& st : strides) st *= 2;
  return make_view(t, to_real_dtype(t.dtype()), t.sizes(), strides, t.storage_offset() * 2 + part);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string r;
  for (size_t i = 0; i < parts.size(); ++i) r += (i ? sep : "") + parts[i];
  return r;
}

std::string vector_str(const Tensor& t, const Tensor& im, size_t indent, bool summarize, const Parts& f,
                       const PrintOptions& o) {
  size_t element_len = f.width() + 2;
  size_t per_line =
      std::max<size_t>(1, (static_cast<size_t>(o.linewidth) - std::min<size_t>(indent, o.linewidth)) / element_len);
  std::vector<std::string> data;
  int64_t n = t.size(0), e = o.edgeitems;
  if (summarize && e == 0) {
    data.push_back("...");
    return "[" + data[0] + "]";
  }
  std::vector<long double> v = row_values(t, summarize, e);  // See Note [print only the edges]
  std::vector<long double> vi = im.defined() ? row_values(im, summarize, e) : std::vector<long double>(v.size());
  if (summarize && n > 2 * e) {
    for (int64_t i = 0; i < e; ++i) data.push_back(f.format(v[i], vi[i]));
    data.push_back(" ...");
    for (int64_t i = 0; i < e; ++i) data.push_back(f.format(v[e + i], vi[e + i]));
  } else {
    for (size_t i = 0; i < v.size(); ++i) data.push_back(f.format(v[i], vi[i]));
  }
  std::vector<std::string> lines;
  for (size_t i = 0; i < data.size(); i += per_line)
    lines.push_back(
        join(std::vector<std::string>(data.begin() + i, data.begin() + std::min(data.size(), i + per_line)), ", "));
  return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
}

std::string tensor_str(const Tensor& t, const Tensor& im, size_t indent, bool summarize, const Parts& f,
                       const PrintOptions& o) {
  if (t.dim() == 0) return f.format(values_of(t)[0], im.defined() ? values_of(im)[0] : 0.0L);
  if (t.dim() == 1) return vector_str(t, im, indent, summarize, f, o);
  std::vector<std::string> slices;
  int64_t n = t.size(0), e = o.edgeitems;
  auto slice = [&](int64_t i) {
    return tensor_str(t.select(0, i), im.defined() ? im.select(0, i) : Tensor(), indent + 1, summarize, f, o);
  };
  if (summarize && n > 2 * e) {
    for (int64_t i = 0; i < e; ++i) slices.push_back(slice(i));
    slices.push_back("...");
    for (int64_t i = n - e; i < n; ++i) slices.push_back(slice(i));
  } else {
    for (int64_t i = 0; i < n; ++i) slices.push_back(slice(i));
  }
  return "[" + join(slices, "," + std::string(static_cast<size_t>(t.dim() - 1), '\n') + std::string(indent + 1, ' ')) +
         "]";
}

}  // namespace

std::string format_tensor(const Tensor& t, const std::vector<std::string>& extra, const std::string& prefix) {
  EMBER_CHECK(t.defined(), "format_tensor: undefined tensor");
  const PrintOptions& o = print_options();
  size_t indent = prefix.size();
  std::vector<std::string> suffixes;
  std::string body;
  std::string dtype_str = fmt::format("dtype=ember.{}", t.dtype());
  if (t.numel() == 0) {
    if (t.dim() != 1) {
      std::string sz = "size=(";
      for (int64_t i = 0; i < t.dim(); ++i) sz += (i ? ", " : "") + std::to_string(t.sizes()[i]);
      suffixes.push_back(sz + (t.dim() == 1 ? ",)" : ")"));
    }
    if (t.dtype() != default_dtype()) suffixes.push_back(dtype_str);
    body = "[]";
  } else {
    bool default_kind = t.dtype() == default_dtype() || t.dtype() == default_complex_dtype() ||
                        t.dtype() == kInt64 || t.dtype() == kBool;
    if (!default_kind) suffixes.push_back(dtype_str);
    bool summarize = t.numel() > o.threshold;
    // See Note [printing complex tensors].
    Tensor re = is_complex(t.dtype()) ? complex_part(t, 0) : t;
    Tensor im = is_complex(t.dtype()) ? complex_part(t, 1) : Tensor();
    std::vector<long double> shown;
    shown_values(re, summarize, o.edgeitems, shown);
    Formatter f(re.dtype(), shown, o);
    std::optional<Formatter> fi;
    if (im.defined()) {
      std::vector<long double> shown_im;
      shown_values(im, summarize, o.edgeitems, shown_im);
      fi.emplace(im.dtype(), shown_im, o);
    }
    body = tensor_str(re, im, indent, summarize, Parts{f, fi ? &*fi : nullptr}, o);
  }
  for (const auto& s : extra) suffixes.push_back(s);
  std::string out = prefix + body;
  size_t nl = out.rfind('\n');
  // PyTorch's len(s) - s.rfind("\n") + 1, with rfind giving -1 when there is no newline.
  size_t last_len = nl == std::string::npos ? out.size() + 2 : out.size() - nl + 1;
  for (const auto& s : suffixes) {
    if (last_len + s.size() + 2 > static_cast<size_t>(o.linewidth)) {
      out += ",\n" + std::string(indent, ' ') + s;
      last_len = indent + s.size();
    } else {
      out += ", " + s;
      last_len += s.size() + 2;
    }
  }
  return out + ")";
}

std::string Tensor::str() const { return format_tensor(*this); }

std::string Tensor::toString() const {
  std::string name = device().is_cpu() ? "CPU" : "CUDA";
  name += linalg::scalar_type_name(dtype());
  return name + "Type";
}

// Note [LibTorch's tensor printing]
// `std::cout << t` follows LibTorch 1.13's at::print so that ported programs print the same text: the tensor is
// read as float64 and one format (width sz, scale, fixed/scientific) is chosen for all of it from the largest
// and smallest finite magnitude, as decades expMax/expMin = floor(log10|x|) + 1. One quirk is kept on purpose:
// LibTorch updates expMax only when the signed value exceeds it, so an all-negative tensor takes its first
// element's magnitude as the largest (which is why "0.01 *" scales can appear for negative values).
namespace {

struct LibTorchFormat {
  double scale = 1;
  int64_t width = 0;
};

// Sets the stream's float format and returns the scale and column width for the values of t (float64,
// contiguous).
LibTorchFormat libtorch_format(std::ostream& stream, const Tensor& t) {
  int64_t size = t.numel();
  if (size == 0) return {1., 0};
  const double* p = t.data_ptr<double>();
  bool int_mode = true;
  for (int64_t i = 0; i < size; ++i) {
    if (std::isfinite(p[i]) && p[i] != std::ceil(p[i])) {
      int_mode = false;
      break;
    }
  }
  int64_t offset = 0;
  while (offset < size && !std::isfinite(p[offset])) ++offset;
  double exp_min = 1, exp_max = 1;
  if (offset < size) {
    exp_min = std::fabs(p[offset]);
    exp_max = std::fabs(p[offset]);
    for (int64_t i = offset; i < size; ++i) {
      double z = std::fabs(p[i]);
      if (std::isfinite(z)) {
        if (z < exp_min) exp_min = z;
        if (p[i] > exp_max) exp_max = z;  // the signed comparison of Note [LibTorch's tensor printing]
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  LibTorchFormat f;
  if (int_mode) {
    if (exp_max > 9) {
      f.width = 11;
      stream << std::scientific << std::setprecision(4);
    } else {
      f.width = static_cast<int64_t>(exp_max) + 1;
      stream << std::defaultfloat;
    }
  } else if (exp_max - exp_min > 4) {
    f.width = 11;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) f.width += 1;
    stream << std::scientific << std::setprecision(4);
  } else if (exp_max > 5 || exp_max < 0) {
    f.width = 7;
    f.scale = std::pow(10, exp_max - 1);
    stream << std::fixed << std::setprecision(4);
  } else {
    f.width = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
    stream << std::fixed << std::setprecision(4);
  }
  return f;
}

void print_indent(std::ostream& stream, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) stream << " ";
}

void print_scale(std::ostream& stream, double scale) {
  std::ios_base::fmtflags flags = stream.flags();
  stream << std::defaultfloat << scale << " *" << std::endl;
  stream.flags(flags);
}

// A float64 contiguous matrix, its columns in blocks that fit linesize.
void print_matrix(std::ostream& stream, const Tensor& m, int64_t linesize, int64_t indent) {
  LibTorchFormat f = libtorch_format(stream, m);
  print_indent(stream, indent);
  int64_t per_line = (linesize - indent) / (f.width + 1);
  if (per_line < 1) per_line = 1;
  int64_t rows = m.size(0), cols = m.size(1);
  const double* p = m.data_ptr<double>();
  for (int64_t first = 0; first < cols;) {
    int64_t last = first + per_line <= cols ? first + per_line - 1 : cols - 1;
    if (per_line < cols) {
      if (first != 0) stream << std::endl;
      stream << "Columns " << first + 1 << " to " << last + 1;
      print_indent(stream, indent);
    }
    if (f.scale != 1) {
      print_scale(stream, f.scale);
      print_indent(stream, indent);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        stream << std::setw(static_cast<int>(f.width)) << p[r * cols + c] / f.scale;
        if (c == last) {
          stream << std::endl;
          if (r != rows - 1) {
            print_indent(stream, indent);
            if (f.scale != 1) stream << " ";
          }
        } else {
          stream << " ";
        }
      }
    }
    first = last + 1;
  }
}

// Tensors of 3 or more dims: one matrix per index of the leading dims, the first leading dim varying fastest
// (LibTorch's order), each headed "(i,j,.,.) = ".
void print_tensor(std::ostream& stream, const Tensor& t, int64_t linesize) {
  int64_t lead = t.dim() - 2;
  std::vector<int64_t> counter(static_cast<size_t>(lead), 0);
  counter[0] = -1;
  bool start = true;
  while (true) {
    bool finished = false;
    for (int64_t i = 0; i < lead; ++i) {
      counter[i] += 1;
      if (counter[i] >= t.size(i)) {
        if (i == lead - 1) {
          finished = true;
          break;
        }
        counter[i] = 0;
      } else {
        break;
      }
    }
    if (finished) break;
    if (start) {
      start = false;
    } else {
      stream << std::endl;
    }
    stream << "(";
    Tensor m = t;
    for (int64_t i = 0; i < lead; ++i) {
      m = m.select(0, counter[i]);
      stream << counter[i] + 1 << ",";
    }
    stream << ".,.) = " << std::endl;
    print_matrix(stream, m.contiguous(), linesize, 1);
  }
}

}  // namespace

void print(std::ostream& stream, const Tensor& t, int64_t linesize) {
  std::ios_base::fmtflags flags = stream.flags();
  std::streamsize precision = stream.precision();
  if (!t.defined()) {
    stream << "[ Tensor (undefined) ]";
    return;
  }
  if (t.is_complex()) {
    stream << t.str();
    return;
  }
  // Printing is not part of any computation: detached, so no graph is recorded whatever the grad mode.
  Tensor d = t.detach().to(kFloat64).contiguous();
  if (d.dim() == 0) {
    stream << std::defaultfloat << d.data_ptr<double>()[0] << std::endl;
    stream << "[ " << t.toString() << "{}";
  } else if (d.dim() == 1) {
    if (d.numel() > 0) {
      LibTorchFormat f = libtorch_format(stream, d);
      if (f.scale != 1) print_scale(stream, f.scale);
      const double* p = d.data_ptr<double>();
      for (int64_t i = 0; i < d.size(0); ++i)
        stream << std::setw(static_cast<int>(f.width)) << p[i] / f.scale << std::endl;
    }
    stream << "[ " << t.toString() << "{" << d.size(0) << "}";
  } else if (d.dim() == 2) {
    if (d.numel() > 0) print_matrix(stream, d, linesize, 0);
    stream << "[ " << t.toString() << "{" << d.size(0) << "," << d.size(1) << "}";
  } else {
    if (d.numel() > 0) print_tensor(stream, d, linesize);
    stream << "[ " << t.toString() << "{" << d.size(0);
    for (int64_t i = 1; i < d.dim(); ++i) stream << "," << d.size(i);
    stream << "}";
  }
  stream << " ]";
  stream.flags(flags);
  stream.precision(precision);
}

}  // namespace ember
