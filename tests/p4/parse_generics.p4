// Generics, externs, functions, serializable enums, expressions and annotations on a
// small custom architecture (parse-only; no v1model).

#include <core.p4>

match_kind {
    range_mk
}

error {
    Custom
}

const bit<8> GLOBAL_K = 2;
typedef bit<32> u32;
type bit<16> PortId_t;
typedef tuple<bit<8>, bool> pair_t;

enum Color {
    Red,
    Green,
    Blue,
}

enum bit<8> Opcode {
    Read = 1,
    Write = 2,
    Nack = 8w0x10
}

@deprecated("use Pair2")
struct Pair<T> {
    T first;
    T second;
}

header Wide<W> {
    bit<8> tag;
    W value;
}

extern Checksum<T> {
    Checksum();
    Checksum(bit<16> seed);
    void clear();
    void add<D>(in D data);
    void add<D>(in D data, in bool flag);
    T get();
    @pure abstract T finish(in T partial);
}

extern Virtual {
    Virtual();
    abstract bit<16> f(in bit<16> ix);
}

extern T pick<T>(in bool which, in T a, in T b);
@pure extern bit<32> hash_it<D>(in D data);
extern void log_it<T>(string msg, @optional in T data);
extern void fetch(out bit<8> v);

T choose<T>(in bool first, in T a, in T b) {
    return first ? a : b;
}

bit<8> clamp(in bit<8> x, in bit<8> lo, in bit<8> hi) {
    if (x < lo) {
        return lo;
    } else if (x > hi) {
        return hi;
    }
    return x;
}

void nothing() {
    return;
}

struct meta_t {
    bit<8> a;
    bit<8> b;
    int<8> s;
    bit<32> w;
    Pair<bit<8>> p;
    Opcode op;
    Color color;
    pair_t tp;
    PortId_t port;
}

header hdr_t {
    bit<8> f;
}

parser Prs<H>(packet_in b, out H h);
control Pipe<H>(inout H h, inout meta_t m);
package Top<H>(Prs<H> p, Pipe<H> c);

parser MyPrs(packet_in b, out hdr_t h) {
    state start {
        b.extract<hdr_t>(h);
        transition accept;
    }
}

@hidden
control MyPipe(inout hdr_t h, inout meta_t m)(bit<8> init_val) {
    Checksum<bit<16>>() ck;
    Checksum<bit<16>>(16w0xFFFF) ck2;
    const bit<8> K = 8w5 + 3;
    bit<8> scratch = 0;

    @a[k = 1, v = "x"]
    action compute(inout bit<8> dst, bit<8> v) {
        dst = v;
    }

    apply {
        m.a = m.b + m.a * 2;
        m.a = m.a << 2 + 1;
        m.w = m.w >> 2;
        m.w = m.w[31:16] ++ m.w[15:0];
        m.a = (bit<8>) m.s;
        m.a = (bit<8>) (m.w >> 24);
        m.s = -8s1;
        m.a = ~m.a & 0x0F | m.b ^ 0b1010_1010;
        m.a = m.a |+| 1 |-| 2;
        m.a = 8w0o17 + 0d99 + 0XfF + 16w0xFFFF[7:0];
        m.p = { 8w1, 8w2 };
        m.p = { first = 8w1, second = 8w2 };
        m.p = (Pair<bit<8>>) { first = 3, second = 4 };
        m.tp = { 8w1, true };
        m.op = Opcode.Write;
        m.color = Color.Blue;
        m.w = (bit<32>) hdr_t.minSizeInBits();
        m.w = (u32) m.port;
        m.port = (PortId_t) 16w8;
        m.a = choose<bit<8>>(m.a > m.b, m.a, m.b);
        m.a = choose(first = true, a = m.a, b = m.b);
        m.a = pick(m.a == 0 || m.b != 0 && true, m.a, m.b);
        m.a = clamp(x = m.a, lo = 1, hi = 10);
        m.a = .GLOBAL_K;
        ck.clear();
        ck.add<bit<8>>(m.a);
        ck.add(m.a, false);
        log_it<bit<8>>("value {} \"quoted\"\n", m.a);
        fetch(_);
        compute(m.a, K);
        compute(dst = m.b, v = init_val);
        nothing();
        @atomic {
            m.b = m.b + 1;
        }
        bool flag = m.a >= 3 && m.b <= 4 || m.a < m.b;
        if (flag == false) {
            m.b = m.a > m.b ? m.a : m.b;
        }
        switch (m.a) {
            1:
            2: {
                m.b = 1;
            }
            K: { }
            default: {
                m.b = 0;
            }
        }
        switch (m.color) {
            Color.Red: { }
            Color.Green:
            default: { }
        }
        if (m.a == 0)
            m.b = 1;
        else
            ;
    }
}

Top(MyPrs(), MyPipe(8w1)) main;
