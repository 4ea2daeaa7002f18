// fpforge prove: the C++ harness around a Verilated combinational unit (fpforge.sim.harness builds it).
//
// The model is the wrapper `fpforge_prove_top`: LANES copies of the unit side by side, each with its own
// input `a[l]` (and `r[l]`, the unit's `rand` port), sharing the ports that are constant over a segment
// (`c_mode`, `c_sat`, `c_bias`); one eval() computes LANES vectors. The unit's ports come from
// prove_ports.h, which fpforge.sim.harness generates per unit:
//
//   A_BITS, RAND_BITS (0: no rand port), LANES, RECORD_BYTES
//   FIXED_PORTS(X)  X(name, width) for every constant port, in the order of a segment's fixed values
//   OUT_PORTS(X)    X(name, width) for every output, packed into a record from bit 0 upwards
//
// Usage: harness SEGMENT [SEGMENT ...], a SEGMENT being "start,count,state[,fixed...]" (decimal):
// inputs a = start .. start+count-1, fixed ports set to the fixed values, and, with a rand port, the
// draws of the golden generator (fpforge.golden.rng: xorshift32 13/17/5, draw = top RAND_BITS bits of
// the state, one step per vector) starting from `state`, the state whose top bits are the segment's first
// draw. For every vector, in order, one little-endian record of RECORD_BYTES bytes goes to stdout: the
// outputs packed from bit 0 upwards, then the draw the vector got (so Python can check the draws it
// gives the golden model are the ones the unit saw). On exit: "cpu_seconds=<s>" on stderr.
#include "prove_ports.h"

#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "records are written little-endian");
static_assert(RECORD_BYTES == 1 || RECORD_BYTES == 2 || RECORD_BYTES == 4 || RECORD_BYTES == 8,
              "a record is 1, 2, 4 or 8 bytes");

#define FIXED_COUNT(name, width) +1

static inline uint64_t mask_bits(int width) { return width >= 64 ? ~0ull : ((1ull << width) - 1); }

static inline uint32_t xorshift32(uint32_t s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

static bool parse_segment(const char* text, std::vector<uint64_t>& fields) {
    fields.clear();
    const char* p = text;
    while (*p) {
        char* end;
        fields.push_back(strtoull(p, &end, 10));
        if (end == p || (*end && *end != ',')) return false;
        p = *end ? end + 1 : end;
    }
    return true;
}

int main(int argc, char** argv) {
    const size_t n_fixed = 0 FIXED_PORTS(FIXED_COUNT);
    VerilatedContext context;
    VTOP top{&context};
    const size_t batch = 1 << 16;  // records per write
    std::vector<unsigned char> out(batch * RECORD_BYTES);
    std::vector<uint64_t> seg;
    uint64_t draws[LANES] = {0};
    (void)draws;
    for (int k = 1; k < argc; k++) {
        if (!parse_segment(argv[k], seg) || seg.size() != 3 + n_fixed) {
            fprintf(stderr, "harness: bad segment '%s' (start,count,state and %zu fixed values)\n", argv[k], n_fixed);
            return 2;
        }
        const uint64_t start = seg[0], count = seg[1];
        uint32_t state = (uint32_t)seg[2];
        (void)state;
        size_t f = 3;
#define SET_FIXED(name, width) top.c_##name = seg[f++] & mask_bits(width);
        FIXED_PORTS(SET_FIXED)
#undef SET_FIXED
        size_t fill = 0;
        for (uint64_t done = 0; done < count; done += LANES) {
            const int n = count - done < (uint64_t)LANES ? (int)(count - done) : LANES;
            for (int l = 0; l < LANES; l++) {
                const int src = l < n ? l : 0;  // lanes past the end repeat lane 0
                top.a[l] = (start + done + src) & mask_bits(A_BITS);
#if RAND_BITS
                if (l < n) {
                    draws[l] = state >> (32 - RAND_BITS);
                    state = xorshift32(state);
                }
                top.r[l] = draws[src];
#endif
            }
            top.eval();
            for (int l = 0; l < n; l++) {
                uint64_t rec = 0;
                int shift = 0;
#define PACK(name, width) rec |= ((uint64_t)top.o_##name[l] & mask_bits(width)) << shift; shift += width;
                OUT_PORTS(PACK)
#undef PACK
#if RAND_BITS
                rec |= draws[l] << shift;
#endif
                memcpy(&out[fill * RECORD_BYTES], &rec, RECORD_BYTES);
                if (++fill == batch) {
                    if (fwrite(out.data(), RECORD_BYTES, fill, stdout) != fill) return 3;  // reader went away
                    fill = 0;
                }
            }
        }
        if (fill && fwrite(out.data(), RECORD_BYTES, fill, stdout) != fill) return 3;
    }
    fflush(stdout);
    top.final();
    fprintf(stderr, "cpu_seconds=%.6f\n", (double)clock() / CLOCKS_PER_SEC);
    return 0;
}
