/*
 * behavioral_model.pipeline._native -- the generated pipeline's per-packet
 * header and struct work in C.
 *
 * The generated pipeline keeps header fields as Python ints in __slots__ objects
 * (values.py).  Extracting a header field by field in Python costs four bytecodes
 * per field and emitting one costs as many again; a packet crossing a switch
 * extracts and emits five or six headers.  A Codec does the same work for one
 * header type in one call: it reads the header's bits (P4_16 spec 12.8.1,
 * fields most significant bit first, in declaration order) straight into the
 * object's slots, and packs the slots back into bytes (spec 15.3).
 *
 * A Codec describes a header whose fields are all bit<W>, int<W> or bool, with
 * a total width that is a whole number of bytes, extracted at a byte boundary:
 * headercodec.native_fields decides which headers qualify, and the generated
 * code calls a Codec only after it checked that the bytes are there.  Anything
 * else stays on the Python path, which computes the same values (the tests
 * compare the two on random layouts and packets).
 *
 * A Deparser emits a headers struct's valid headers, each through its Codec, in
 * one call.  A ParsePlan (_parseplan.c) runs a parser's common path with the
 * Codecs in one call.  A Prototype builds the per-packet structs (headers, metadata,
 * standard metadata) by copying a fresh instance's slots, where every slot holds
 * an immutable value.
 *
 * Built by setup.py as an optional extension: without a C compiler the package
 * installs without it and the pipeline runs in Python alone (native.py).
 */

#include "_native.h"

#include <string.h>

enum { KIND_UNSIGNED = 0, KIND_SIGNED = 1, KIND_BOOL = 2 };

PyObject *valid_name;  /* "_valid" */

/* -- slots ------------------------------------------------------------------------ */

/* The offset of slot `name` of `cls`, or -1 (with an exception) when it is none. */
Py_ssize_t
slot_offset(PyTypeObject *cls, PyObject *name)
{
    PyObject *descr = PyObject_GetAttr((PyObject *)cls, name);
    if (descr == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        descr = Py_NewRef(Py_None);
    }
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY))
            offset = member->offset;
    }
    Py_DECREF(descr);
    if (offset < 0)
        PyErr_Format(PyExc_TypeError, "%R is not a writable slot of %s", name, cls->tp_name);
    return offset;
}

/* Stores `value` (stolen) into field `name` of `obj`: straight into the slot at
 * `offset` for an object of class `cls`, by attribute for any other. */
static int
store_field(PyTypeObject *cls, PyObject *obj, Py_ssize_t offset, PyObject *name,
            PyObject *value)
{
    if (value == NULL)
        return -1;
    if (Py_IS_TYPE(obj, cls)) {
        store_slot(obj, offset, value);
        return 0;
    }
    int rc = PyObject_SetAttr(obj, name, value);
    Py_DECREF(value);
    return rc;
}

/* Field `name` of `obj` (a new reference), as `store_field` finds it; NULL with
 * AttributeError when it was never set. */
PyObject *
load_field(PyTypeObject *cls, PyObject *obj, Py_ssize_t offset, PyObject *name)
{
    if (cls != NULL && Py_IS_TYPE(obj, cls)) {
        PyObject *value = *(PyObject **)((char *)obj + offset);
        if (value == NULL) {
            PyErr_SetObject(PyExc_AttributeError, name);
            return NULL;
        }
        return Py_NewRef(value);
    }
    return PyObject_GetAttr(obj, name);
}

/* -- bits ------------------------------------------------------------------------- */

/* Bits [bit, bit + width) of `p`, width <= 64, most significant first. */
static inline unsigned long long
read_bits(const unsigned char *p, int bit, int width)
{
    int first = bit >> 3;
    int last = (bit + width + 7) >> 3;
    unsigned __int128 acc = 0;
    for (int i = first; i < last; i++)
        acc = (acc << 8) | p[i];
    acc >>= (last << 3) - (bit + width);
    if (width < 64)
        acc &= (((unsigned __int128)1) << width) - 1;
    return (unsigned long long)acc;
}

/* ORs `value` (width <= 64 bits) into `p` at bits [bit, bit + width). */
static inline void
write_bits(unsigned char *p, int bit, int width, unsigned long long value)
{
    int first = bit >> 3;
    int last = (bit + width + 7) >> 3;
    if (width < 64)
        value &= (1ULL << width) - 1;
    unsigned __int128 acc = ((unsigned __int128)value) << ((last << 3) - (bit + width));
    for (int i = last - 1; i >= first; i--) {
        p[i] |= (unsigned char)(acc & 0xFF);
        acc >>= 8;
    }
}

#if PY_VERSION_HEX < 0x030C0000
/* Values of up to 128 bits (IPv6 addresses, SRv6 SIDs: several per packet) straight
 * from and to the int's digits, the layout of CPython before 3.12: the generic byte
 * array conversions walk the bytes one bit-shift at a time, about ten times longer. */
#define U128_DIGITS ((128 + PyLong_SHIFT - 1) / PyLong_SHIFT)
#define U128_TOP_BITS (128 - (U128_DIGITS - 1) * PyLong_SHIFT)

static PyObject *
long_from_u128(unsigned __int128 v)
{
    if ((v >> 64) == 0)
        return PyLong_FromUnsignedLongLong((unsigned long long)v);
    Py_ssize_t ndigits = 0;
    for (unsigned __int128 t = v; t != 0; t >>= PyLong_SHIFT)
        ndigits++;
    PyLongObject *result = _PyLong_New(ndigits);
    if (result == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < ndigits; i++) {
        result->ob_digit[i] = (digit)(v & PyLong_MASK);
        v >>= PyLong_SHIFT;
    }
    return (PyObject *)result;
}

/* 1 with *out set if `value` (an int) is in [0, 2**128); 0 if not (no exception). */
static int
long_as_u128(PyObject *value, unsigned __int128 *out)
{
    Py_ssize_t size = Py_SIZE(value);
    if (size < 0 || size > U128_DIGITS)
        return 0;
    const digit *d = ((PyLongObject *)value)->ob_digit;
    if (size == U128_DIGITS && (d[size - 1] >> U128_TOP_BITS) != 0)
        return 0;
    unsigned __int128 v = 0;
    for (Py_ssize_t i = size - 1; i >= 0; i--)
        v = (v << PyLong_SHIFT) | d[i];
    *out = v;
    return 1;
}
#endif

static PyObject *
long_from_bytes(const unsigned char *p, Py_ssize_t n)
{
#if PY_VERSION_HEX < 0x030C0000
    if (n <= 16) {
        unsigned __int128 v = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            v = (v << 8) | p[i];
        return long_from_u128(v);
    }
#endif
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(p, (size_t)n,
                                          Py_ASNATIVEBYTES_BIG_ENDIAN |
                                          Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
#else
    return _PyLong_FromByteArray(p, (size_t)n, 0, 0);
#endif
}

/* `value` (a non-negative int below 256**n) as n big-endian bytes into `p`. */
static int
long_to_bytes(PyObject *value, unsigned char *p, Py_ssize_t n)
{
#if PY_VERSION_HEX < 0x030C0000
    unsigned __int128 v;
    if (n <= 16 && long_as_u128(value, &v) && (n == 16 || (v >> (8 * n)) == 0)) {
        for (Py_ssize_t i = n - 1; i >= 0; i--) {
            p[i] = (unsigned char)(v & 0xFF);
            v >>= 8;
        }
        return 0;
    }
#endif
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(value, p, n,
                                           Py_ASNATIVEBYTES_BIG_ENDIAN |
                                           Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    return need < 0 ? -1 : 0;
#else
    return _PyLong_AsByteArray((PyLongObject *)value, p, (size_t)n, 0, 0);
#endif
}

/* The value of field `f` read from the header's bytes at `p`. */
static PyObject *
decode_field(const Field *f, const unsigned char *p)
{
    if (f->width <= 64) {
        unsigned long long bits = read_bits(p, f->bit_offset, f->width);
        if (f->kind == KIND_BOOL)
            return PyBool_FromLong(bits != 0);
        if (f->kind == KIND_SIGNED && (bits >> (f->width - 1)) & 1) {
            /* two's complement: the bits above the width are ones */
            if (f->width < 64)
                bits |= ~0ULL << f->width;
            return PyLong_FromLongLong((long long)bits);
        }
        return PyLong_FromUnsignedLongLong(bits);
    }
    /* Wider than 64 bits (IPv6 addresses): the covering bytes as one int. */
    int first = f->bit_offset >> 3;
    int last = (f->bit_offset + f->width + 7) >> 3;
    PyObject *value = long_from_bytes(p + first, last - first);
    if (value != NULL && f->shift_amount != NULL) {
        PyObject *shifted = PyNumber_Rshift(value, f->shift_amount);
        Py_DECREF(value);
        value = shifted ? PyNumber_And(shifted, f->mask) : NULL;
        Py_XDECREF(shifted);
    }
    if (value != NULL && f->kind == KIND_SIGNED) {
        /* ((v + half) & mask) - half, as the Python extractor computes it */
        PyObject *sum = PyNumber_Add(value, f->half);
        PyObject *wrapped = sum ? PyNumber_And(sum, f->mask) : NULL;
        Py_XDECREF(sum);
        Py_DECREF(value);
        value = wrapped ? PyNumber_Subtract(wrapped, f->half) : NULL;
        Py_XDECREF(wrapped);
    }
    return value;
}

/* ORs field `f`'s value `value` into the header's bytes at `p`, cut to its width
 * (a negative value wraps, as `value & mask` does in Python). */
static int
encode_field(const Field *f, PyObject *value, unsigned char *p)
{
    if (f->kind == KIND_BOOL) {
        int truth = PyObject_IsTrue(value);
        if (truth < 0)
            return -1;
        write_bits(p, f->bit_offset, f->width, (unsigned long long)truth);
        return 0;
    }
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "header field value must be an int, not %s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    if (f->width <= 64) {
        unsigned long long bits = PyLong_AsUnsignedLongLongMask(value);
        if (bits == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        write_bits(p, f->bit_offset, f->width, bits);
        return 0;
    }
    int first = f->bit_offset >> 3;
    int last = (f->bit_offset + f->width + 7) >> 3;
#if PY_VERSION_HEX < 0x030D0000
    /* A value already in range (what generated code stores) needs no mask. */
    if (f->shift_amount == NULL && _PyLong_Sign(value) >= 0 &&
        _PyLong_NumBits(value) <= (size_t)f->width)
        return long_to_bytes(value, p + first, last - first);
#endif
    PyObject *masked = PyNumber_And(value, f->mask);
    if (masked == NULL)
        return -1;
    int rc;
    if (f->shift_amount == NULL) {
        rc = long_to_bytes(masked, p + first, last - first);
    } else {
        unsigned char tmp[last - first];
        PyObject *shifted = PyNumber_Lshift(masked, f->shift_amount);
        rc = shifted ? long_to_bytes(shifted, tmp, last - first) : -1;
        Py_XDECREF(shifted);
        if (rc == 0)
            for (int i = 0; i < last - first; i++)
                p[first + i] |= tmp[i];
    }
    Py_DECREF(masked);
    return rc;
}

/* -- Codec ------------------------------------------------------------------------ */

static int
read_buffer(PyObject *buf, Py_ssize_t byte_pos, Py_ssize_t nbytes, Py_buffer *view)
{
    if (PyObject_GetBuffer(buf, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (byte_pos < 0 || byte_pos + nbytes > view->len) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "header runs past the end of the packet");
        return -1;
    }
    return 0;
}

int
codec_fill(Codec *self, PyObject *obj, const unsigned char *p)
{
    for (Py_ssize_t i = 0; i < self->nfields; i++) {
        Field *f = &self->fields[i];
        if (store_field(self->cls, obj, f->offset, f->name, decode_field(f, p)) < 0)
            return -1;
    }
    return store_field(self->cls, obj, self->valid_offset, valid_name, Py_NewRef(Py_True));
}

/* The header's bytes in `buf` (args[0]) at byte args[1], after checking the call
 * has `nargs` == `expected` arguments; NULL with an exception otherwise.  The
 * caller releases `view`. */
static const unsigned char *
header_bytes(Codec *self, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected,
             const char *usage, Py_buffer *view)
{
    if (nargs != expected) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    if (pos == -1 && PyErr_Occurred())
        return NULL;
    if (read_buffer(args[0], pos, self->nbytes, view) < 0)
        return NULL;
    return (const unsigned char *)view->buf + pos;
}

/* extract_into(buf, byte_pos, h): the header at byte `byte_pos` of `buf` into `h`. */
static PyObject *
Codec_extract_into(Codec *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    const unsigned char *p = header_bytes(self, args, nargs, 3,
                                          "extract_into(buf, byte_pos, h)", &view);
    if (p == NULL)
        return NULL;
    int rc = codec_fill(self, args[2], p);
    PyBuffer_Release(&view);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* extract(buf, byte_pos): a new header object holding the header at `byte_pos`. */
static PyObject *
Codec_extract(Codec *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    const unsigned char *p = header_bytes(self, args, nargs, 2, "extract(buf, byte_pos)",
                                          &view);
    if (p == NULL)
        return NULL;
    PyObject *obj = self->cls->tp_alloc(self->cls, 0);
    if (obj != NULL && codec_fill(self, obj, p) < 0)
        Py_CLEAR(obj);
    PyBuffer_Release(&view);
    return obj;
}

/* The fields of header `h` into the zeroed bytes at `p`. */
static int
encode_into(Codec *self, PyObject *h, unsigned char *p)
{
    for (Py_ssize_t i = 0; i < self->nfields; i++) {
        Field *f = &self->fields[i];
        PyObject *value = load_field(self->cls, h, f->offset, f->name);
        int rc = value ? encode_field(f, value, p) : -1;
        Py_XDECREF(value);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* emit(h): the header's bytes. */
static PyObject *
Codec_emit(Codec *self, PyObject *h)
{
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->nbytes);
    if (out == NULL)
        return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    memset(p, 0, (size_t)self->nbytes);
    if (encode_into(self, h, p) < 0)
        Py_CLEAR(out);
    return out;
}

/* Whether header `h` is valid: its `_valid` slot, or attribute. */
static int
is_valid(Codec *self, PyObject *h)
{
    PyObject *value = load_field(self->cls, h, self->valid_offset, valid_name);
    if (value == NULL)
        return -1;
    int truth = value == Py_True ? 1 : value == Py_False ? 0 : PyObject_IsTrue(value);
    Py_DECREF(value);
    return truth;
}

static void
Codec_clear_fields(Codec *self)
{
    if (self->fields == NULL)
        return;
    for (Py_ssize_t i = 0; i < self->nfields; i++) {
        Py_XDECREF(self->fields[i].name);
        Py_XDECREF(self->fields[i].mask);
        Py_XDECREF(self->fields[i].half);
        Py_XDECREF(self->fields[i].shift_amount);
    }
    PyMem_Free(self->fields);
    self->fields = NULL;
}

static void
Codec_dealloc(Codec *self)
{
    Codec_clear_fields(self);
    Py_XDECREF(self->cls);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
power_of_two_minus(int exponent, int minus)
{
    PyObject *one = PyLong_FromLong(1);
    PyObject *amount = PyLong_FromLong(exponent);
    PyObject *power = (one && amount) ? PyNumber_Lshift(one, amount) : NULL;
    PyObject *result = NULL;
    if (power != NULL && minus) {
        result = PyNumber_Subtract(power, one);
        Py_DECREF(power);
    } else {
        result = power;
    }
    Py_XDECREF(one);
    Py_XDECREF(amount);
    return result;
}

/* Codec(cls, fields): `fields` is a sequence of (slot name, width, kind) in
 * declaration order, kind 0 for bit<W>, 1 for int<W>, 2 for bool. */
static int
Codec_init(Codec *self, PyObject *args, PyObject *kwds)
{
    PyObject *cls, *spec;
    static char *keywords[] = {"cls", "fields", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O:Codec", keywords, &PyType_Type, &cls,
                                     &spec))
        return -1;
    PyObject *seq = PySequence_Fast(spec, "fields must be a sequence");
    if (seq == NULL)
        return -1;
    Codec_clear_fields(self);
    Py_XSETREF(self->cls, (PyTypeObject *)Py_NewRef(cls));
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    self->fields = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Field));
    self->nfields = n;
    if (self->fields == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    long bit = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Field *f = &self->fields[i];
        PyObject *name;
        int width, kind;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "Uii:field", &name, &width,
                              &kind))
            goto fail;
        if (width < 1 || width > 1 << 20 || kind < KIND_UNSIGNED || kind > KIND_BOOL ||
            (kind == KIND_BOOL && width != 1)) {
            PyErr_Format(PyExc_ValueError, "field %R: bad width %d or kind %d", name, width,
                         kind);
            goto fail;
        }
        f->name = Py_NewRef(name);
        f->width = width;
        f->kind = kind;
        f->bit_offset = (int)bit;
        f->offset = slot_offset(self->cls, name);
        if (f->offset < 0)
            goto fail;
        if (width > 64) {
            f->mask = power_of_two_minus(width, 1);
            if (f->mask == NULL)
                goto fail;
            if (kind == KIND_SIGNED && (f->half = power_of_two_minus(width - 1, 0)) == NULL)
                goto fail;
            /* a wide field off the byte grid is shifted into place, per packet */
            long shift = ((bit + width + 7) >> 3 << 3) - (bit + width);
            if ((shift || (bit & 7)) && (f->shift_amount = PyLong_FromLong(shift)) == NULL)
                goto fail;
        }
        bit += width;
        if (bit > INT_MAX / 2) {
            PyErr_SetString(PyExc_ValueError, "header too wide");
            goto fail;
        }
    }
    if (bit % 8) {
        PyErr_SetString(PyExc_ValueError, "header width is not a whole number of bytes");
        goto fail;
    }
    self->nbytes = bit / 8;
    self->valid_offset = slot_offset(self->cls, valid_name);
    if (self->valid_offset < 0)
        goto fail;
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    Codec_clear_fields(self);
    self->nfields = 0;
    return -1;
}

static PyObject *
Codec_get_nbytes(Codec *self, void *closure)
{
    return PyLong_FromSsize_t(self->nbytes);
}

static PyMethodDef Codec_methods[] = {
    {"extract", (PyCFunction)(void (*)(void))Codec_extract, METH_FASTCALL,
     "extract(buf, byte_pos) -> a new header object read from buf at byte_pos"},
    {"extract_into", (PyCFunction)(void (*)(void))Codec_extract_into, METH_FASTCALL,
     "extract_into(buf, byte_pos, h) -> None: the header at byte_pos into h"},
    {"emit", (PyCFunction)Codec_emit, METH_O, "emit(h) -> the header's bytes"},
    {NULL}
};

static PyGetSetDef Codec_getset[] = {
    {"nbytes", (getter)Codec_get_nbytes, NULL, "the header's size in bytes", NULL},
    {NULL}
};

PyTypeObject CodecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "behavioral_model.pipeline._native.Codec",
    .tp_doc = "Codec(cls, fields): extract and emit one header type in C",
    .tp_basicsize = sizeof(Codec),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Codec_init,
    .tp_dealloc = (destructor)Codec_dealloc,
    .tp_methods = Codec_methods,
    .tp_getset = Codec_getset,
};

/* -- Deparser --------------------------------------------------------------------- */

/* A deparser that emits fields of its headers struct in order, each a header or a
 * stack of headers that a Codec serves (parsergen decides), in one call: the valid
 * headers' bytes, concatenated (P4_16 spec 15.3: emit appends a valid header, skips
 * an invalid one; a stack emits its elements in index order). */
typedef struct {
    PyObject *name;     /* the struct's field */
    Py_ssize_t offset;  /* its slot in an object of the Deparser's class */
    Codec *codec;
    int stack;          /* a header stack: its `elems` one by one */
} Step;

typedef struct {
    PyObject_HEAD
    PyTypeObject *cls;  /* the headers struct's class, or NULL */
    Py_ssize_t nsteps;
    Step *steps;
} Deparser;

static PyObject *elems_name;  /* "elems" */

typedef struct {
    PyObject *h;
    Codec *codec;
} Part;

/* Appends `h` to the parts when it is valid; -1 on error. */
static int
add_part(Codec *codec, PyObject *h, Part **parts, Py_ssize_t *n, Py_ssize_t *cap,
         Part *stack_parts, Py_ssize_t *total)
{
    int valid = is_valid(codec, h);
    if (valid <= 0)
        return valid;
    if (*n == *cap) {
        Py_ssize_t grown = *cap * 2;
        Part *bigger = PyMem_Malloc((size_t)grown * sizeof(Part));
        if (bigger == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(bigger, *parts, (size_t)*n * sizeof(Part));
        if (*parts != stack_parts)
            PyMem_Free(*parts);
        *parts = bigger;
        *cap = grown;
    }
    (*parts)[*n].h = Py_NewRef(h);
    (*parts)[*n].codec = codec;
    (*n)++;
    *total += codec->nbytes;
    return 0;
}

/* The bytes of hdr's valid headers, followed by `payload` when it is not NULL. */
static PyObject *
deparse(Deparser *self, PyObject *hdr, const Py_buffer *payload)
{
    Part stack_parts[32];
    Part *parts = stack_parts;
    Py_ssize_t n = 0, cap = 32, total = 0;
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < self->nsteps; i++) {
        Step *step = &self->steps[i];
        PyObject *value = load_field(self->cls, hdr, step->offset, step->name);
        if (value == NULL)
            goto done;
        int rc = 0;
        if (!step->stack) {
            rc = add_part(step->codec, value, &parts, &n, &cap, stack_parts, &total);
        } else {
            PyObject *elems = PyObject_GetAttr(value, elems_name);
            PyObject *seq = elems ? PySequence_Fast(elems, "a stack's elems") : NULL;
            Py_XDECREF(elems);
            if (seq == NULL) {
                rc = -1;
            } else {
                for (Py_ssize_t j = 0; rc == 0 && j < PySequence_Fast_GET_SIZE(seq); j++)
                    rc = add_part(step->codec, PySequence_Fast_GET_ITEM(seq, j), &parts, &n,
                                  &cap, stack_parts, &total);
                Py_DECREF(seq);
            }
        }
        Py_DECREF(value);
        if (rc < 0)
            goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, total + (payload ? payload->len : 0));
    if (out == NULL)
        goto done;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    memset(p, 0, (size_t)total);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (encode_into(parts[i].codec, parts[i].h, p) < 0) {
            Py_CLEAR(out);
            goto done;
        }
        p += parts[i].codec->nbytes;
    }
    if (payload != NULL && payload->len)
        memcpy(p, payload->buf, (size_t)payload->len);
done:
    for (Py_ssize_t i = 0; i < n; i++)
        Py_DECREF(parts[i].h);
    if (parts != stack_parts)
        PyMem_Free(parts);
    return out;
}

/* emit(hdr): the bytes of hdr's valid headers. */
static PyObject *
Deparser_emit(Deparser *self, PyObject *hdr)
{
    return deparse(self, hdr, NULL);
}

/* frame(hdr, payload): the packet that leaves, hdr's valid headers then the payload
 * the parser did not extract, made in one piece (the deparser's output and the
 * payload are otherwise joined in a second copy). */
static PyObject *
Deparser_frame(Deparser *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "frame() takes a headers struct and a payload");
        return NULL;
    }
    Py_buffer payload;
    if (PyObject_GetBuffer(args[1], &payload, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *out = deparse(self, args[0], &payload);
    PyBuffer_Release(&payload);
    return out;
}

static void
Deparser_clear_steps(Deparser *self)
{
    for (Py_ssize_t i = 0; i < self->nsteps; i++) {
        Py_XDECREF(self->steps[i].name);
        Py_XDECREF(self->steps[i].codec);
    }
    PyMem_Free(self->steps);
    self->steps = NULL;
    self->nsteps = 0;
}

static void
Deparser_dealloc(Deparser *self)
{
    Deparser_clear_steps(self);
    Py_XDECREF(self->cls);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Deparser(steps, cls=None): `steps` is a sequence of (field name, Codec, is a
 * stack); `cls`, the headers struct's class, whose fields are then read from their
 * slots (any other object's by attribute). */
static int
Deparser_init(Deparser *self, PyObject *args, PyObject *kwds)
{
    PyObject *spec, *cls = NULL;
    static char *keywords[] = {"steps", "cls", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O!:Deparser", keywords, &spec,
                                     &PyType_Type, &cls))
        return -1;
    Py_XSETREF(self->cls, (PyTypeObject *)Py_XNewRef(cls));
    PyObject *seq = PySequence_Fast(spec, "steps must be a sequence");
    if (seq == NULL)
        return -1;
    Deparser_clear_steps(self);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    self->steps = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Step));
    if (self->steps == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name, *codec;
        int stack;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "UO!p:step", &name,
                              &CodecType, &codec, &stack)) {
            Py_DECREF(seq);
            Deparser_clear_steps(self);
            return -1;
        }
        self->steps[i].name = Py_NewRef(name);
        self->steps[i].codec = (Codec *)Py_NewRef(codec);
        self->steps[i].stack = stack;
        self->steps[i].offset = -1;
        self->nsteps = i + 1;
        if (self->cls != NULL &&
            (self->steps[i].offset = slot_offset(self->cls, name)) < 0) {
            Py_DECREF(seq);
            Deparser_clear_steps(self);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static PyMethodDef Deparser_methods[] = {
    {"emit", (PyCFunction)Deparser_emit, METH_O,
     "emit(hdr) -> the bytes of the valid headers among hdr's steps, in order"},
    {"frame", (PyCFunction)(void (*)(void))Deparser_frame, METH_FASTCALL,
     "frame(hdr, payload) -> emit(hdr) followed by payload (any bytes-like object)"},
    {NULL}
};

static PyTypeObject DeparserType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "behavioral_model.pipeline._native.Deparser",
    .tp_doc = "Deparser(steps, cls=None): emit a headers struct's valid headers in one call",
    .tp_basicsize = sizeof(Deparser),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Deparser_init,
    .tp_dealloc = (destructor)Deparser_dealloc,
    .tp_methods = Deparser_methods,
};

/* -- Prototype -------------------------------------------------------------------- */

/* A struct whose every slot holds an immutable value (ints, bools, the shared zero
 * headers that generated code copies before writing, values.py) is built by copying
 * the slots of one such instance: what its __init__ would store, one call instead of
 * a store per field.  A slot holding a nested struct gets a new one of its own, from
 * the nested struct's Prototype. */
typedef struct Prototype {
    PyObject_HEAD
    PyObject *template;
    Py_ssize_t nslots;
    Py_ssize_t *offsets;
    Py_ssize_t nnested;
    Py_ssize_t *nested_offsets;
    struct Prototype **nested;
} Prototype;

static PyTypeObject PrototypeType;

/* new(): a new object of the template's class, its slots the template's. */
static PyObject *
Prototype_new_object(Prototype *self, PyObject *unused)
{
    PyTypeObject *cls = Py_TYPE(self->template);
    PyObject *obj = cls->tp_alloc(cls, 0);
    if (obj == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < self->nslots; i++) {
        Py_ssize_t offset = self->offsets[i];
        PyObject *value = *(PyObject **)((char *)self->template + offset);
        store_slot(obj, offset, Py_XNewRef(value));
    }
    for (Py_ssize_t i = 0; i < self->nnested; i++) {
        PyObject *value = Prototype_new_object(self->nested[i], NULL);
        if (value == NULL) {
            Py_DECREF(obj);
            return NULL;
        }
        store_slot(obj, self->nested_offsets[i], value);
    }
    return obj;
}

static void
Prototype_clear_nested(Prototype *self)
{
    for (Py_ssize_t i = 0; i < self->nnested; i++)
        Py_XDECREF(self->nested[i]);
    PyMem_Free(self->nested);
    PyMem_Free(self->nested_offsets);
    self->nested = NULL;
    self->nested_offsets = NULL;
    self->nnested = 0;
}

static void
Prototype_dealloc(Prototype *self)
{
    Py_XDECREF(self->template);
    PyMem_Free(self->offsets);
    Prototype_clear_nested(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The offsets of the slots named by the sequence `names` of `cls` (NULL on error). */
static Py_ssize_t *
slot_offsets(PyTypeObject *cls, PyObject *names, Py_ssize_t *count)
{
    PyObject *seq = PySequence_Fast(names, "slots must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Py_ssize_t *offsets = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Py_ssize_t));
    if (offsets == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "slot names must be strings");
            goto fail;
        }
        offsets[i] = slot_offset(cls, name);
        if (offsets[i] < 0)
            goto fail;
    }
    Py_DECREF(seq);
    *count = n;
    return offsets;
fail:
    Py_DECREF(seq);
    PyMem_Free(offsets);
    return NULL;
}

/* Prototype(template, slots, nested={}): `slots` names the slots of the template's
 * class to copy, `nested` maps the others, each holding a struct, to the Prototype
 * of that struct. */
static int
Prototype_init(Prototype *self, PyObject *args, PyObject *kwds)
{
    PyObject *template, *slots, *nested = NULL;
    static char *keywords[] = {"template", "slots", "nested", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O!:Prototype", keywords, &template,
                                     &slots, &PyDict_Type, &nested))
        return -1;
    Py_ssize_t n;
    Py_ssize_t *offsets = slot_offsets(Py_TYPE(template), slots, &n);
    if (offsets == NULL)
        return -1;
    Py_ssize_t nn = nested ? PyDict_Size(nested) : 0;
    Py_ssize_t *nested_offsets = PyMem_Calloc(nn ? (size_t)nn : 1, sizeof(Py_ssize_t));
    Prototype **children = PyMem_Calloc(nn ? (size_t)nn : 1, sizeof(Prototype *));
    if (nested_offsets == NULL || children == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t pos = 0, i = 0;
    PyObject *name, *child;
    while (nested && PyDict_Next(nested, &pos, &name, &child)) {
        if (!Py_IS_TYPE(child, &PrototypeType) || !PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "nested maps slot names to Prototypes");
            goto fail;
        }
        nested_offsets[i] = slot_offset(Py_TYPE(template), name);
        if (nested_offsets[i] < 0)
            goto fail;
        children[i++] = (Prototype *)Py_NewRef(child);
    }
    Py_XSETREF(self->template, Py_NewRef(template));
    PyMem_Free(self->offsets);
    self->offsets = offsets;
    self->nslots = n;
    Prototype_clear_nested(self);
    self->nested = children;
    self->nested_offsets = nested_offsets;
    self->nnested = nn;
    return 0;
fail:
    for (Py_ssize_t j = 0; children && j < nn; j++)
        Py_XDECREF(children[j]);
    PyMem_Free(children);
    PyMem_Free(nested_offsets);
    PyMem_Free(offsets);
    return -1;
}

static PyMethodDef Prototype_methods[] = {
    {"new", (PyCFunction)Prototype_new_object, METH_NOARGS,
     "new() -> a new object whose slots are the template's"},
    {NULL}
};

static PyTypeObject PrototypeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "behavioral_model.pipeline._native.Prototype",
    .tp_doc = "Prototype(template, slots, nested={}): new objects holding the template's "
              "slot values, and new nested structs",
    .tp_basicsize = sizeof(Prototype),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Prototype_init,
    .tp_dealloc = (destructor)Prototype_dealloc,
    .tp_methods = Prototype_methods,
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "behavioral_model.pipeline._native",
    .m_doc = "Header extraction and emission, deparsing and per-packet structs in C "
             "for the generated pipeline.",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    if (PyType_Ready(&CodecType) < 0 || PyType_Ready(&PrototypeType) < 0 ||
        PyType_Ready(&DeparserType) < 0 || PyType_Ready(&ParsePlanType) < 0)
        return NULL;
    valid_name = PyUnicode_InternFromString("_valid");
    elems_name = PyUnicode_InternFromString("elems");
    if (valid_name == NULL || elems_name == NULL)
        return NULL;
    PyObject *module = PyModule_Create(&native_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddObjectRef(module, "Codec", (PyObject *)&CodecType) < 0 ||
        PyModule_AddObjectRef(module, "Prototype", (PyObject *)&PrototypeType) < 0 ||
        PyModule_AddObjectRef(module, "Deparser", (PyObject *)&DeparserType) < 0 ||
        PyModule_AddObjectRef(module, "ParsePlan", (PyObject *)&ParsePlanType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
