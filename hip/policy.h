/*
 * policy.h -- the type layer the kernel families share: what is read (In), what is
 * accumulated (A) and with which operator, for each (in_type, out_type, op) the C API
 * offers, and the dispatch from run-time dtypes to those compile-time types (pp_hip_dispatch
 * for the families of (in_type, op, out_type); PP_DISPATCH_IN_OUT for those of a dtype pair
 * alone).
 */
#ifndef PP_HIP_POLICY_H
#define PP_HIP_POLICY_H

#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "type_pairs.h"

namespace {

constexpr int REDUCE_VPT = 8; /* reduce.hip: 16-byte vectors per thread per tile */

/* Shuffles move 32 bits at least: u8 values travel widened. Integer sums and products are
 * done in the unsigned type of the result's width (wrapping, no undefined behaviour). */
template <typename T> using shfl_t = typename std::conditional<(sizeof(T) < 4), uint32_t, T>::type;
template <typename T> struct unsigned_of { using type = T; }; /* floats stay */
template <> struct unsigned_of<uint8_t> { using type = uint32_t; };
template <> struct unsigned_of<int32_t> { using type = uint32_t; };
template <> struct unsigned_of<int64_t> { using type = uint64_t; };

/* Plain reduce: In elements converted to A (exactly) and combined with Op. */
template <typename In, typename A, typename Op> struct plain_policy {
    using in_t = In;
    using acc_t = A;
    using op = Op;
    static constexpr bool ordered = std::is_floating_point<A>::value; /* order changes bits */
    static constexpr int vpt = REDUCE_VPT;
    static PP_DEVICE A make(In x, uint64_t) { return A(x); }
    template <typename Out> static PP_DEVICE void store(A r, Out *v, uint64_t *) { *v = Out(r); }
};

/* Calls run.template go<P>() with the accumulation policy of (In, Out, op): the one place
 * that maps an op to its accumulator type and operator. Integer sums and products wrap in
 * the unsigned type of the result's width; u8 compares and bit ops widen to 32 bits for
 * the shuffles. PP_ERROR_UNSUPPORTED for a combination src/ would not pass. */
template <typename In, typename Out, typename Run> pp_status with_policy(pp_op op, Run &run)
{
    using SumA = typename unsigned_of<Out>::type;
    using CmpA = shfl_t<In>;
    using BitA = shfl_t<typename unsigned_of<In>::type>;
    constexpr bool same = std::is_same<In, Out>::value;
    constexpr bool bits = same && std::is_integral<In>::value;
    switch (op) {
    case PP_OP_SUM: return run.template go<plain_policy<In, SumA, pp_op_sum<SumA>>>();
    case PP_OP_PROD:
        if constexpr (same) return run.template go<plain_policy<In, SumA, pp_op_prod<SumA>>>();
        break;
    case PP_OP_MIN:
        if constexpr (same) return run.template go<plain_policy<In, CmpA, pp_op_min<CmpA>>>();
        break;
    case PP_OP_MAX:
        if constexpr (same) return run.template go<plain_policy<In, CmpA, pp_op_max<CmpA>>>();
        break;
    case PP_OP_AND:
        if constexpr (bits) return run.template go<plain_policy<In, BitA, pp_op_and<BitA>>>();
        break;
    case PP_OP_OR:
        if constexpr (bits) return run.template go<plain_policy<In, BitA, pp_op_or<BitA>>>();
        break;
    case PP_OP_XOR:
        if constexpr (bits) return run.template go<plain_policy<In, BitA, pp_op_xor<BitA>>>();
        break;
    }
    return PP_ERROR_UNSUPPORTED;
}

/* with_policy's run for a family: go<P>() calls fam.go<P, Out>(). */
template <typename Out, typename Family> struct pp_family_call {
    Family &fam;
    template <typename P> pp_status go() { return fam.template go<P, Out>(); }
};

/* The HIP dispatch of a family whose calls name (in_type, op, out_type): the (In, Out) pair of
 * src/type_pairs.h's list, the accumulation policy P of op (with_policy), and then
 * fam.template go<P, Out>(), so that every family instantiates exactly the combinations the
 * C API offers, in one way. A combination without one fails with PP_ERROR_UNSUPPORTED,
 * named after the caller `fn` (unless the family reported a failure of its own). */
template <typename Family>
pp_status pp_hip_dispatch(pp_context *ctx, const char *fn, pp_dtype in_type, pp_op op, pp_dtype out_type, Family &fam)
{
    pp_status st = PP_ERROR_UNSUPPORTED;
#define PP_HIP_DISPATCH_PAIR_(F, I, O, ci, co)                                                    \
    if (in_type == I && out_type == O) {                                                        \
        pp_family_call<co, F> call = {fam};                                                     \
        st = with_policy<ci, co>(op, call);                                                     \
    } else
    PP_FOR_EACH_IN_OUT(PP_HIP_DISPATCH_PAIR_, Family) {}
#undef PP_HIP_DISPATCH_PAIR_
    if (st == PP_ERROR_UNSUPPORTED && !ctx->message[0])
        return pp__fail(ctx, st, "%s: hip has no %s from %s to %s", fn, pp_op_name(op), pp_dtype_name(in_type),
                        pp_dtype_name(out_type));
    return st;
}

} // namespace

/* Returns CALL(In, Out) from the enclosing function for the (in_type, out_type) pairs that
 * reductions and scans accept (src/type_pairs.h, the one list); falls through otherwise. */
#define PP_DISPATCH_IN_OUT(ctx, in_type, out_type, CALL)                                          \
    do {                                                                                        \
        (void)(ctx);                                                                            \
        const pp_dtype pp_in_ = (in_type), pp_out_ = (out_type);                                \
        PP_FOR_EACH_IN_OUT(PP_DISPATCH_PAIR_, CALL)                                             \
    } while (0)
#define PP_DISPATCH_PAIR_(CALL, I, O, ci, co) if (pp_in_ == I && pp_out_ == O) return CALL(ci, co);

#endif
