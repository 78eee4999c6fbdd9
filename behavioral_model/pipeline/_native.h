/*
 * What the C files of behavioral_model.pipeline._native share: a header type's
 * Codec (_native.c) and the slot helpers, which the ParsePlan (_parseplan.c)
 * uses to extract headers as the generated parser does.
 */

#ifndef MRC_P4_NATIVE_H
#define MRC_P4_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject *name;       /* the slot's name (for objects of another class) */
    Py_ssize_t offset;    /* the slot's offset in an object of the Codec's class */
    int bit_offset;       /* from the header's first bit */
    int width;
    int kind;
    PyObject *mask;       /* width > 64: 2**width - 1 */
    PyObject *half;       /* width > 64 and signed: 2**(width - 1) */
    PyObject *shift_amount;  /* width > 64, off the byte grid: the bits after it in
                                its last byte */
} Field;

typedef struct {
    PyObject_HEAD
    PyTypeObject *cls;
    Py_ssize_t valid_offset;
    Py_ssize_t nbytes;
    Py_ssize_t nfields;
    Field *fields;
} Codec;

extern PyTypeObject CodecType;
extern PyTypeObject ParsePlanType;
extern PyObject *valid_name;  /* "_valid" */

/* The offset of slot `name` of `cls`, or -1 (with an exception) when it is none. */
Py_ssize_t slot_offset(PyTypeObject *cls, PyObject *name);

/* Field `name` of `obj` (a new reference): from the slot at `offset` for an object
 * of class `cls`, by attribute for any other. */
PyObject *load_field(PyTypeObject *cls, PyObject *obj, Py_ssize_t offset, PyObject *name);

/* The header at `p` (the Codec's nbytes) into `obj`'s fields, and valid. */
int codec_fill(Codec *self, PyObject *obj, const unsigned char *p);

static inline void
store_slot(PyObject *obj, Py_ssize_t offset, PyObject *value /* stolen */)
{
    PyObject **slot = (PyObject **)((char *)obj + offset);
    PyObject *old = *slot;
    *slot = value;
    Py_XDECREF(old);
}

#endif
