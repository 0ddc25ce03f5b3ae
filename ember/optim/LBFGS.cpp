#include "ember/optim/LBFGS.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/optim/Update.h"

namespace ember::optim {

namespace {

// The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
// [xmin_bound, xmax_bound]; their middle when the cubic has no minimum (Nocedal & Wright, eq. 3.59).
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2, double xmin_bound,
                         double xmax_bound) {
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2.;
}

double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2) {
  return cubic_interpolate(x1, f1, g1, x2, f2, g2, std::min(x1, x2), std::max(x1, x2));
}

double dot_value(const Tensor& a, const Tensor& b) { return a.dot(b).item<double>(); }

struct LineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  int64_t func_evals;
};

// A step t along d satisfying the strong Wolfe conditions (sufficient decrease with c1, curvature with c2):
// bracketing, then zoom by cubic interpolation (Nocedal & Wright, algorithms 3.5 and 3.6), in the order of
// Python's ember.optim.lbfgs._strong_wolfe. obj(t) evaluates the loss and flat gradient at x + t d.
template <class Objective>
LineSearchResult strong_wolfe(Objective&& obj, double t, const Tensor& d, double f, const Tensor& g_in, double gtd,
                              double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9,
                              int64_t max_ls = 25) {
  const double d_norm = d.abs().max().item<double>();
  Tensor g = g_in.clone(MemoryFormat::Contiguous);
  auto [f_new, g_new] = obj(t);
  int64_t ls_func_evals = 1;
  double gtd_new = dot_value(g_new, d);

  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone(MemoryFormat::Contiguous)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone(MemoryFormat::Contiguous)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate: the cubic's minimizer within [t + 0.01 (t - t_prev), 10 t].
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, min_step, max_step);
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone(MemoryFormat::Contiguous);
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj(t);
    ++ls_func_evals;
    gtd_new = dot_value(g_new, d);
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom: shrink the bracket until a point satisfies the conditions.
  bool insuf_progress = false;
  size_t low_pos = 0, high_pos = 1;
  if (bracket_f.front() > bracket_f.back()) std::swap(low_pos, high_pos);
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // A trial point within 10% of the bracket's length from an end makes insufficient progress: the second
    // time in a row (or at an end), it moves to that 10% mark.
    const double hi = std::max(bracket[0], bracket[1]), lo = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj(t);
    ++ls_func_evals;
    gtd_new = dot_value(g_new, d);
    ++ls_iter;
    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low_pos]) {
      // No sufficient decrease, or not below the low end: the new point becomes the high end.
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone(MemoryFormat::Contiguous);
      bracket_gtd[high_pos] = gtd_new;
      if (bracket_f[0] <= bracket_f[1]) {
        low_pos = 0;
        high_pos = 1;
      } else {
        low_pos = 1;
        high_pos = 0;
      }
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        // The old high end becomes the new low end.
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone(MemoryFormat::Contiguous);
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}

IValue tensor_list(const std::vector<Tensor>& tensors) {
  std::vector<IValue> items(tensors.begin(), tensors.end());
  return IValue::list(std::move(items));
}

// A list entry of Python's LBFGS state (a list of tensors; None entries become undefined tensors).
std::vector<Tensor> tensors_of(const IValue& v, std::string_view key) {
  std::vector<Tensor> out;
  if (v.is_tensor_list()) {
    for (const Tensor& t : v.to_tensor_list()) out.push_back(t);
    return out;
  }
  EMBER_CHECK(v.is_list() || v.is_tuple(), "load_state_dict: LBFGS state entry '{}' must be a list, not {}", key,
              v.tag_name());
  for (const IValue& x : v.to_list()) {
    EMBER_CHECK(x.is_tensor() || x.is_none(), "load_state_dict: LBFGS state entry '{}' must hold tensors, not {}",
                key, x.tag_name());
    out.push_back(x.is_tensor() ? x.to_tensor() : Tensor());
  }
  return out;
}

// A number of Python's LBFGS state that may be a float or a 0-dim tensor (t, prev_loss).
double number_of(const IValue& v, std::string_view key) {
  if (v.is_tensor()) return v.to_tensor().item<double>();
  EMBER_CHECK(v.is_int() || v.is_double(), "load_state_dict: LBFGS state entry '{}' must be a number, not {}", key,
              v.tag_name());
  return v.to_double();
}

}  // namespace

void LBFGSOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("max_iter", max_iter_);
  v.field("max_eval", max_eval_);
  v.field("tolerance_grad", tolerance_grad_);
  v.field("tolerance_change", tolerance_change_);
  v.field("history_size", history_size_);
  v.field("line_search_fn", line_search_fn_);
}

std::unique_ptr<OptimizerParamState> LBFGSParamState::clone() const {
  return std::make_unique<LBFGSParamState>(*this);
}

std::vector<std::pair<std::string, IValue>> LBFGSParamState::items() const {
  std::vector<std::pair<std::string, IValue>> items{{"func_evals", func_evals_}, {"n_iter", n_iter_}};
  if (al_) {
    std::vector<IValue> al;
    for (const Tensor& a : *al_) al.push_back(a.defined() ? IValue(a) : IValue());
    items.emplace_back("al", IValue::list(std::move(al)));
  }
  if (!d_.defined()) return items;  // no step has run to its end yet
  items.emplace_back("d", d_);
  items.emplace_back("t", t_ ? IValue(*t_) : IValue());
  items.emplace_back("old_dirs", tensor_list(old_dirs_));
  items.emplace_back("old_stps", tensor_list(old_stps_));
  items.emplace_back("ro", tensor_list(ro_));
  items.emplace_back("H_diag", H_diag_.defined() ? IValue(H_diag_) : IValue(int64_t{1}));
  items.emplace_back("prev_flat_grad", prev_flat_grad_);
  items.emplace_back("prev_loss", prev_loss_ ? IValue(*prev_loss_) : IValue());
  return items;
}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), [&] {
        if (!defaults.max_eval()) defaults.max_eval(defaults.max_iter() * 5 / 4);
        return std::make_unique<LBFGSOptions>(defaults);
      }()) {
  EMBER_CHECK_VALUE(this->param_groups().size() == 1,
                    "LBFGS doesn't support per-parameter options (parameter groups)");
  auto& options = static_cast<LBFGSOptions&>(this->param_groups().front().options());
  if (!options.max_eval()) options.max_eval(options.max_iter() * 5 / 4);
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const Tensor& p : param_groups().front().params()) n += p.numel();
  return n;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups().front().params()) {
    Tensor g = autograd::grad(p);
    views.push_back(g.defined() ? g.reshape({-1}) : zeros({p.numel()}, p.dtype()));
  }
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const Tensor& p : param_groups().front().params()) {
    const int64_t n = p.numel();
    p.add_(update.narrow(0, offset, n).view(p.sizes()), step_size);
    offset += n;
  }
  EMBER_CHECK(offset == numel(), "LBFGS: the update has {} elements but the parameters {}", offset, numel());
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x,
                                                      double t, const Tensor& d) {
  add_grad(t, d);
  const double loss = evaluate(closure).item<double>();
  Tensor flat_grad = gather_flat_grad();
  const auto& params = param_groups().front().params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x[i]);
  return {loss, flat_grad};
}

Tensor LBFGS::step(LossClosure closure) {
  // The order of Python's ember.optim.LBFGS.step (PyTorch 1.13's), with the scalars as doubles.
  EMBER_CHECK(closure != nullptr, "LBFGS.step: a closure that re-evaluates the model and returns the loss is "
                                  "required");
  autograd::NoGradGuard no_grad;
  const auto& o = static_cast<const LBFGSOptions&>(param_groups().front().options());
  const double lr = o.lr(), tolerance_grad = o.tolerance_grad(), tolerance_change = o.tolerance_change();
  const int64_t max_iter = o.max_iter(), max_eval = o.max_eval().value_or(max_iter * 5 / 4);
  const int64_t history_size = o.history_size();
  const auto& params = param_groups().front().params();
  auto& state = state_or_init<LBFGSParamState>(params.front(), [] { return LBFGSParamState(); });

  Tensor orig_loss = evaluate(closure);
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  state.func_evals(state.func_evals() + 1);
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
  if (opt_cond) return orig_loss;

  Tensor d = state.d();
  double t = state.t().value_or(lr);
  std::vector<Tensor> old_dirs = state.old_dirs(), old_stps = state.old_stps(), ro = state.ro();
  Tensor H_diag = state.H_diag();
  Tensor prev_flat_grad = state.prev_flat_grad();
  std::optional<double> prev_loss = state.prev_loss();

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    ++n_iter;
    state.n_iter(state.n_iter() + 1);

    // The descent direction.
    if (state.n_iter() == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      H_diag = Tensor();  // 1
    } else {
      Tensor y = flat_grad.sub(prev_flat_grad);
      Tensor s = d.mul(t);
      Tensor ys = y.dot(s);
      if (ys.item<double>() > 1e-10) {
        if (int64_t(old_dirs.size()) == history_size) {
          old_dirs.erase(old_dirs.begin());
          old_stps.erase(old_stps.begin());
          ro.erase(ro.begin());
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(ys.reciprocal());
        H_diag = ys.div(y.dot(y));
      }
      // The two-loop recursion, in one buffer: d = -H g.
      const size_t num_old = old_dirs.size();
      if (!state.al()) state.al(std::vector<Tensor>(size_t(history_size)));
      std::vector<Tensor> al = *state.al();
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = old_stps[k].dot(q).mul(ro[k]);
        q.add_(old_dirs[k], -al[k].item<double>());
      }
      Tensor r = H_diag.defined() ? q.mul(H_diag) : q.mul(detail::number(1));
      for (size_t k = 0; k < num_old; ++k) {
        Tensor be_i = old_dirs[k].dot(r).mul(ro[k]);
        r.add_(old_stps[k], al[k].sub(be_i).item<double>());
      }
      d = r;
      state.al(std::move(al));
    }
    if (!prev_flat_grad.defined())
      prev_flat_grad = flat_grad.clone(MemoryFormat::Contiguous);
    else
      prev_flat_grad.copy_(flat_grad);
    prev_loss = loss;

    // The step length.
    t = state.n_iter() == 1 ? std::min(1., flat_grad.abs().sum().reciprocal().item<double>()) * lr : lr;
    const double gtd = dot_value(flat_grad, d);
    if (gtd > -tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      EMBER_CHECK(*o.line_search_fn() == "strong_wolfe", "only 'strong_wolfe' is supported");
      std::vector<Tensor> x_init;
      for (const Tensor& p : params) x_init.push_back(p.clone(MemoryFormat::Contiguous));
      auto obj = [&](double step) { return directional_evaluate(closure, x_init, step, d); };
      LineSearchResult ls = strong_wolfe(obj, t, d, loss, flat_grad, gtd);
      loss = ls.loss;
      flat_grad = ls.flat_grad;
      t = ls.t;
      ls_func_evals = ls.func_evals;
      add_grad(t, d);
      opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
    } else {
      add_grad(t, d);
      if (n_iter != max_iter) {
        // Re-evaluated except at the last iteration (in a stochastic setting it would be wasted).
        loss = evaluate(closure).item<double>();
        flat_grad = gather_flat_grad();
        opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals(state.func_evals() + ls_func_evals);

    if (n_iter == max_iter || current_evals >= max_eval || opt_cond) break;
    if (d.mul(t).abs().max().item<double>() <= tolerance_change) break;
    if (std::abs(loss - *prev_loss) < tolerance_change) break;
  }

  state.d(d);
  state.t(t);
  state.old_dirs(std::move(old_dirs));
  state.old_stps(std::move(old_stps));
  state.ro(std::move(ro));
  state.H_diag(H_diag);
  state.prev_flat_grad(prev_flat_grad);
  state.prev_loss(prev_loss);
  return orig_loss;
}

std::unique_ptr<OptimizerParamState> LBFGS::state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                            const Tensor& /*param*/) const {
  auto state = std::make_unique<LBFGSParamState>();
  auto int_entry = [&](std::string_view key) {
    const IValue* v = find_entry(entries, key);
    EMBER_CHECK(v != nullptr && v->is_int(), "load_state_dict: LBFGS state entry '{}' must be an int", key);
    return v->to_int();
  };
  state->func_evals(int_entry("func_evals"));
  state->n_iter(int_entry("n_iter"));
  if (const IValue* al = find_entry(entries, "al")) state->al(tensors_of(*al, "al"));
  if (find_entry(entries, "d") == nullptr) return state;
  state->d(tensor_entry(entries, "d", "LBFGS state"));
  if (const IValue* t = find_entry(entries, "t"); t && !t->is_none()) state->t(number_of(*t, "t"));
  auto list_entry = [&](std::string_view key) {
    const IValue* v = find_entry(entries, key);
    EMBER_CHECK(v != nullptr, "load_state_dict: LBFGS state has no entry '{}'", key);
    return tensors_of(*v, key);
  };
  state->old_dirs(list_entry("old_dirs"));
  state->old_stps(list_entry("old_stps"));
  state->ro(list_entry("ro"));
  const IValue* h = find_entry(entries, "H_diag");
  EMBER_CHECK(h != nullptr, "load_state_dict: LBFGS state has no entry 'H_diag'");
  if (h->is_tensor()) state->H_diag(h->to_tensor());
  if (const IValue* prev = find_entry(entries, "prev_flat_grad"); prev && prev->is_tensor())
    state->prev_flat_grad(prev->to_tensor());
  if (const IValue* prev = find_entry(entries, "prev_loss"); prev && !prev->is_none())
    state->prev_loss(number_of(*prev, "prev_loss"));
  return state;
}

}  // namespace ember::optim
