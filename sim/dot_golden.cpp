// fpforge prove dot: the golden dot product of scalar operand codes (and of blocks: one block word per code) in C++
// (fpforge.sim.dot_golden builds it as a shared library and calls it through ctypes), an independent twin of
// fpforge.golden.dot.dot.
//
// No per-format logic: each operand side comes as a decode table of every code (Python makes it from the
// format's own value decoder), one Entry per code: the magnitude `mag` (an integer significand), the
// exponent `e` of its LSB (the element is (-1)^sign * mag * 2^e), the sign and the class (finite, NaN, Inf).
//
// The patterns are start .. start + count - 1, or patterns[0 .. count - 1] when given. Pattern p holds operand A in its low a_bits bits (r codes of code_bits_a bits, element 0 lowest) and B above.
// A block operand (k1 > 1 elements per code: a whole block word, its shared fields included) has a table of
// k1 Entries per code: element i of the operand is Entry (code of word i / k1) * k1 + i % k1.
// For each pattern: products S_i = +-mag_a * mag_b at exponent X_i = e_a + e_b (a zero product at x_zero, the
// smallest exponent); Xm = max X_i; each product truncated toward zero into the f-bit window whose LSB weighs
// 2^(Xm + W - (f - 1)) (W: bits of the largest product magnitude); T = the sum; y = T * 2^exp rounded once to
// FP32 (nearest even, subnormals, +-Inf beyond the largest finite value, +0 for T = 0); NaN and Inf by the
// IEEE rules on the products (NaN element, Inf x 0, Infs of both signs -> 0x7FC00000; else an Inf product ->
// +-Inf). Raw outputs: T and exp, two's complement masked to acc_bits / exp_bits.
#include <cstdint>

namespace {

struct Entry {
    int64_t mag;   // integer significand, 0 for zeros, NaN and Inf
    int64_t e;     // exponent of the significand's LSB
    int64_t sign;  // 0 or 1
    int64_t cls;   // 0 finite, 1 NaN, 2 Inf
};

typedef __int128 i128;
typedef unsigned __int128 u128;

const uint32_t QNAN = 0x7FC00000u, INF = 0x7F800000u;

int bit_length(uint64_t m) { return m ? 64 - __builtin_clzll(m) : 0; }

int bit_length(u128 m) { return m >> 64 ? 64 + bit_length((uint64_t)(m >> 64)) : bit_length((uint64_t)m); }

// FP32 bits of T * 2^exp, rounded to nearest even once (I/U: the sum's signed and unsigned types).
template <typename I, typename U>
uint32_t to_fp32(I T, int64_t exp) {
    if (T == 0) return 0;
    const uint32_t sign = T < 0 ? 0x80000000u : 0;
    const U m = T < 0 ? (U)(-T) : (U)T;
    const int L = bit_length(m);
    int64_t lead = exp + L - 1;                    // exponent of the leading one
    // the exponent of the result's LSB: 23 below the leading one, never below the subnormal LSB 2^-149
    int64_t lsb = lead - 23 < -149 ? -149 : lead - 23;
    int64_t drop = lsb - exp;                      // bits of m below the result's LSB
    U q;
    if (drop <= 0) {
        q = m << (-drop);
    } else if (drop > L) {                         // below half of the LSB: rounds to 0
        q = 0;
    } else {
        q = m >> drop;
        const U rem = m - (q << drop);
        const U half = (U)1 << (drop - 1);
        if (rem > half || (rem == half && (q & 1))) q += 1;
    }
    // q is the significand at LSB 2^lsb; a carry out of 24 bits moves the exponent up by one.
    if (q >> 24) { q >>= 1; lsb += 1; }
    if (q == 0) return sign;
    uint32_t bits;
    if (q >> 23) {                                 // normal: biased exponent of the leading one
        const int64_t be = lsb + 23 + 127;
        if (be >= 255) return sign | INF;
        bits = (uint32_t)(be << 23) | (uint32_t)(q & 0x7FFFFF);
    } else {                                       // subnormal (lsb == -149)
        bits = (uint32_t)q;
    }
    return sign | bits;
}

// The dot products of the patterns, the sum T in I (int64_t when f + log2(r) leaves room, else __int128).
template <typename I, typename U>
void kernel(uint64_t start, uint64_t count, int r, int a_bits, int code_bits_a, int code_bits_b, int k1a, int k1b,
            const Entry* table_a, const Entry* table_b, int W, int f, int64_t x_zero, int acc_bits, int exp_bits,
            const uint64_t* patterns, uint64_t* y, uint64_t* sum, uint64_t* expo) {
    const uint64_t mask_a = (1ull << code_bits_a) - 1, mask_b = (1ull << code_bits_b) - 1;
    const uint64_t a_mask = a_bits >= 64 ? ~0ull : (1ull << a_bits) - 1;
    const U acc_mask = acc_bits >= (int)(8 * sizeof(U)) ? ~(U)0 : ((U)1 << acc_bits) - 1;
    const uint64_t exp_mask = exp_bits >= 64 ? ~0ull : (1ull << exp_bits) - 1;
    int64_t S[64], X[64];
    for (uint64_t k = 0; k < count; k++) {
        const uint64_t p = patterns ? patterns[k] : start + k;
        const uint64_t A = p & a_mask, B = a_bits >= 64 ? 0 : p >> a_bits;
        bool nan = false, pos_inf = false, neg_inf = false;
        int64_t xm = x_zero;
        for (int i = 0; i < r; i++) {
            const Entry& ea = table_a[((A >> ((i / k1a) * code_bits_a)) & mask_a) * k1a + i % k1a];
            const Entry& eb = table_b[((B >> ((i / k1b) * code_bits_b)) & mask_b) * k1b + i % k1b];
            const bool neg = ea.sign != eb.sign;
            const bool zero_a = ea.cls == 0 && ea.mag == 0, zero_b = eb.cls == 0 && eb.mag == 0;
            if (ea.cls == 1 || eb.cls == 1 || (ea.cls == 2 && zero_b) || (zero_a && eb.cls == 2)) {
                nan = true;
            } else if (ea.cls == 2 || eb.cls == 2) {
                (neg ? neg_inf : pos_inf) = true;
            }
            const int64_t m = (ea.cls || eb.cls) ? 0 : ea.mag * eb.mag;
            S[i] = neg ? -m : m;
            X[i] = m ? ea.e + eb.e : x_zero;
            if (X[i] > xm) xm = X[i];
        }
        I T = 0;
        for (int i = 0; i < r; i++) {
            if (!S[i]) continue;
            const int64_t shift = (int64_t)(f - 1 - W) - (xm - X[i]);  // A_i = trunc(S_i * 2^shift)
            const U mag = (U)(S[i] < 0 ? -S[i] : S[i]);
            const U a = shift >= 0 ? mag << shift : (-shift >= (int64_t)(8 * sizeof(U)) ? 0 : mag >> (-shift));
            T += S[i] < 0 ? -(I)a : (I)a;
        }
        const int64_t e = xm + W - (f - 1);
        uint32_t out;
        if (nan || (pos_inf && neg_inf)) out = QNAN;
        else if (pos_inf) out = INF;
        else if (neg_inf) out = INF | 0x80000000u;
        else out = to_fp32<I, U>(T, e);
        y[k] = out;
        if (sum) sum[k] = (uint64_t)((U)T & acc_mask);
        if (expo) expo[k] = (uint64_t)e & exp_mask;
    }
}

}  // namespace

extern "C" int fpforge_dot_golden(uint64_t start, uint64_t count, int r, int a_bits, int code_bits_a,
                                  int code_bits_b, int k1a, int k1b, const Entry* table_a, const Entry* table_b,
                                  int W, int f, int64_t x_zero, int acc_bits, int exp_bits, const uint64_t* patterns,
                                  uint64_t* y, uint64_t* sum, uint64_t* expo) {
    if (r < 1 || r > 64 || f < 2 || f > 120 || W < 1 || W > 62 || k1a < 1 || k1b < 1 || r % k1a || r % k1b) return 1;
    // |T| < r * 2^(f - 1) <= 2^(f + 5): int64 up to f = 57
    if (f <= 57) {
        kernel<int64_t, uint64_t>(start, count, r, a_bits, code_bits_a, code_bits_b, k1a, k1b, table_a, table_b, W, f,
                                  x_zero, acc_bits, exp_bits, patterns, y, sum, expo);
    } else {
        kernel<i128, u128>(start, count, r, a_bits, code_bits_a, code_bits_b, k1a, k1b, table_a, table_b, W, f,
                           x_zero, acc_bits, exp_bits, patterns, y, sum, expo);
    }
    return 0;
}
