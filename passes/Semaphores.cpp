//===- Semaphores.cpp - Semaphore counts of a kernel's units --------------===//

#include "passes/Semaphores.h"

#include "runtime/support/LoopNests.h"

using namespace mlir;
using namespace mlir::neuron;

SignalCounts::SignalCounts(const KernelGraph &g, ArrayRef<uint32_t> unit,
                           const std::vector<bool> &signals, uint32_t which)
    : g(g), perIteration(g.getLoops().size(), 0) {
  ArrayRef<LoopInfo> loops = g.getLoops();
  SmallVector<int64_t, 4> partial{0}; // signals so far at each open level
  ::neuron::rt::walkLoopNests(
      g.size(), [&](size_t i) { return g.nestOf(i); },
      [&](int64_t) { partial.push_back(0); },
      [&](int64_t loop) {
        perIteration[loop] = partial.pop_back_val();
        partial.back() += loops[loop].trips * perIteration[loop];
      },
      [&](size_t i) {
        int64_t sum = 0;
        for (int64_t p : partial)
          sum += p;
        first.push_back(sum);
        if (signals[i] && unit[i] == which)
          ++partial.back();
      });
  all = partial.front();
}

AffineIndex SignalCounts::before(size_t i) const {
  AffineIndex a;
  a.constant = first[i];
  for (int32_t loop : g.nestOf(i))
    a.coeffs.push_back(perIteration[loop]);
  return a;
}

int64_t Threshold::at(ArrayRef<int64_t> iv) const {
  int64_t v = count.at(iv);
  if (fewer && size_t(loop) < iv.size() && iv[loop] < iterations)
    v -= fewer;
  return v;
}

/// Calls `f` on each part of the box of `trips` that the fewer first
/// iterations of `ts` cut it into: its lowest corner `lo`, its trips, and
/// each threshold as an affine count over the part's own iterations (from
/// `lo`). Stops at the first part `f` returns true for, and says so.
static bool
forEachPart(ArrayRef<const Threshold *> ts, ArrayRef<int64_t> trips,
            function_ref<bool(ArrayRef<AffineIndex>, ArrayRef<int64_t>,
                              ArrayRef<int64_t>)>
                f) {
  size_t depth = trips.size();
  SmallVector<SmallVector<int64_t, 3>, 4> starts(depth, {0});
  for (const Threshold *t : ts)
    if (t->fewer && size_t(t->loop) < depth && t->iterations > 0 &&
        t->iterations < trips[t->loop])
      starts[t->loop].push_back(t->iterations);
  for (SmallVector<int64_t, 3> &s : starts) {
    llvm::sort(s);
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  SmallVector<size_t, 4> pick(depth, 0);
  SmallVector<int64_t, 4> lo(depth), size(depth);
  SmallVector<AffineIndex, 2> counts;
  while (true) {
    for (size_t l = 0; l < depth; ++l) {
      lo[l] = starts[l][pick[l]];
      size[l] = (pick[l] + 1 < starts[l].size() ? starts[l][pick[l] + 1]
                                                : trips[l]) -
                lo[l];
    }
    counts.clear();
    for (const Threshold *t : ts) {
      counts.push_back(t->count);
      counts.back().constant = t->at(lo);
    }
    if (f(counts, lo, size))
      return true;
    size_t l = 0;
    while (l < depth && ++pick[l] == starts[l].size())
      pick[l++] = 0;
    if (l == depth)
      return false;
  }
}

std::pair<int64_t, SmallVector<int64_t, 4>>
mlir::neuron::minimumOver(const Threshold &a, const Threshold &b,
                          ArrayRef<int64_t> trips) {
  if (!a.fewer && !b.fewer)
    return minimumOver(difference(a.count, b.count), trips);
  std::optional<std::pair<int64_t, SmallVector<int64_t, 4>>> lowest;
  forEachPart({&a, &b}, trips,
              [&](ArrayRef<AffineIndex> c, ArrayRef<int64_t> lo,
                  ArrayRef<int64_t> size) {
                auto [value, at] = minimumOver(difference(c[0], c[1]), size);
                if (!lowest || value < lowest->first) {
                  for (size_t l = 0; l < at.size(); ++l)
                    at[l] += lo[l];
                  lowest = {value, at};
                }
                return false;
              });
  return *lowest;
}

AffineIndex mlir::neuron::difference(const AffineIndex &a,
                                     const AffineIndex &b) {
  AffineIndex d;
  d.constant = a.constant - b.constant;
  d.coeffs.resize(std::max(a.coeffs.size(), b.coeffs.size()), 0);
  for (size_t l = 0; l < d.coeffs.size(); ++l)
    d.coeffs[l] = a.coeff(l) - b.coeff(l);
  return d;
}

std::pair<int64_t, SmallVector<int64_t, 4>>
mlir::neuron::minimumOver(const AffineIndex &f, ArrayRef<int64_t> trips) {
  int64_t value = f.constant;
  SmallVector<int64_t, 4> at(trips.size(), 0);
  for (size_t l = 0; l < trips.size(); ++l)
    if (f.coeff(l) < 0) {
      at[l] = trips[l] - 1;
      value += f.coeff(l) * at[l];
    }
  return {value, at};
}

std::optional<Threshold> mlir::neuron::thresholdOf(const KernelGraph &g,
                                                   const SignalCounts &counts,
                                                   const Dependence &d,
                                                   size_t to) {
  SmallVector<int64_t, 4> fromTrips = g.tripsOf(d.from),
                          toTrips = g.tripsOf(to);
  AffineIndex fromBefore = counts.before(d.from);
  if (d.carried == 0) {
    // The last instance of `from` in this iteration of the shared loops:
    // its own loops at their last iteration, or the one it goes through.
    AffineIndex t;
    t.constant = fromBefore.constant + 1;
    size_t own = d.common + (d.through ? 1 : 0);
    for (size_t l = own; l < fromTrips.size(); ++l)
      t.constant += fromBefore.coeff(l) * (fromTrips[l] - 1);
    for (int32_t l = 0; l < d.common; ++l)
      t.coeffs.push_back(fromBefore.coeff(l));
    if (d.through) {
      int64_t perIteration = fromBefore.coeff(d.common);
      t.constant += perIteration * d.through->constant;
      t.coeffs.resize(std::max(t.coeffs.size(), d.through->coeffs.size()), 0);
      for (size_t l = 0; l < t.coeffs.size(); ++l)
        t.coeffs[l] += perIteration * d.through->coeff(l);
    }
    return t;
  }
  // `distance` iterations back over the outer `carried` loops, measured
  // where it separates the fewest signals: those loops at their last
  // iteration, `to`'s own inner loops at their first, `from`'s at their
  // last.
  int64_t iterations = 1;
  for (int32_t l = 0; l < d.carried; ++l)
    iterations *= toTrips[l];
  if (iterations - 1 < d.distance)
    return std::nullopt; // the instance it would reuse never exists
  SmallVector<int64_t, 4> toAt(toTrips.size(), 0), fromAt(fromTrips.size());
  int64_t back = iterations - 1 - d.distance;
  for (int32_t l = d.carried - 1; l >= 0; --l) {
    toAt[l] = toTrips[l] - 1;
    fromAt[l] = back % toTrips[l];
    back /= toTrips[l];
  }
  for (size_t l = d.carried; l < fromTrips.size(); ++l)
    fromAt[l] = fromTrips[l] - 1;
  AffineIndex toBefore = counts.before(to);
  int64_t slack =
      toBefore.at(toAt) - (fromBefore.at(fromAt) + 1);
  Threshold t;
  t.count.constant = toBefore.constant - slack;
  for (int32_t l = 0; l < d.carried; ++l)
    t.count.coeffs.push_back(toBefore.coeff(l));
  // That window crosses no boundary of the loop around the innermost
  // carried one; in that loop's first `distance` iterations it crosses
  // one, and holds the signals the outer loop's body gives outside the
  // inner loop too.
  int32_t inner = d.carried - 1;
  if (inner >= 1 && d.distance < toTrips[inner]) {
    t.fewer = toBefore.coeff(inner - 1) -
              toTrips[inner] * toBefore.coeff(inner);
    t.loop = inner;
    t.iterations = d.distance;
  }
  return t;
}

/// shortfall for affine counts.
static std::optional<SmallVector<int64_t, 4>>
affineShortfall(const AffineIndex &wait, const AffineIndex &needed,
                ArrayRef<int64_t> trips) {
  AffineIndex margin = difference(wait, needed);
  if (minimumOver(margin, trips).first >= 0)
    return std::nullopt;
  auto fails = [&](ArrayRef<int64_t> iv) {
    return needed.at(iv) > 0 && margin.at(iv) < 0;
  };
  size_t d = trips.size();
  SmallVector<int64_t, 4> iv(d);
  for (uint64_t corner = 0; corner < (uint64_t(1) << d); ++corner) {
    for (size_t l = 0; l < d; ++l)
      iv[l] = (corner >> l) & 1 ? trips[l] - 1 : 0;
    if (fails(iv))
      return iv;
    // Along each edge from this corner, the first iteration where `needed`
    // turns positive.
    for (size_t l = 0; l < d; ++l) {
      int64_t c = needed.coeff(l);
      if (iv[l] != 0 || c <= 0)
        continue;
      int64_t at = needed.at(iv);
      int64_t steps = at > 0 ? 0 : (1 - at + c - 1) / c;
      if (steps >= trips[l])
        continue;
      SmallVector<int64_t, 4> entry(iv);
      entry[l] = steps;
      if (fails(entry))
        return entry;
    }
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t, 4>>
mlir::neuron::shortfall(const Threshold &wait, const Threshold &needed,
                        ArrayRef<int64_t> trips) {
  if (!wait.fewer && !needed.fewer)
    return affineShortfall(wait.count, needed.count, trips);
  std::optional<SmallVector<int64_t, 4>> where;
  forEachPart({&wait, &needed}, trips,
              [&](ArrayRef<AffineIndex> c, ArrayRef<int64_t> lo,
                  ArrayRef<int64_t> size) {
                where = affineShortfall(c[0], c[1], size);
                if (where)
                  for (size_t l = 0; l < where->size(); ++l)
                    (*where)[l] += lo[l];
                return where.has_value();
              });
  return where;
}
