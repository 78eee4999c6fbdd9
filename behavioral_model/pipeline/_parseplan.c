/*
 * ParsePlan: a parser's common path in one C call (parsergen.parse_plan builds it).
 *
 * The generated parser spends most of a packet's parse between its C header
 * extractions: a bounds test, the extraction call, moving the cursor and storing
 * the header per state, then loading the select key and testing the cases.  A
 * ParsePlan holds the parse graph of the states that only extract fixed headers
 * (Codecs) into the headers struct and select on header fields or on one other
 * struct parameter's fields by exact values (P4_16 spec 12.6, 12.8.1); it walks
 * that graph over the packet, keeping the headers it extracted aside.  Reaching
 * accept, it stores them into the headers struct and returns the cursor (bits).
 * Anything it does not do -- a state with any other statement, a key or keyset of
 * another kind, a packet too short, reject, a select no case matches -- makes it
 * give up having changed nothing (-1), and the generated Python parser, which
 * follows, parses the packet from the start as before.  So the plan decides
 * nothing alone: on its path it computes exactly what the Python parser would.
 */

#include "_native.h"

enum { TARGET_ACCEPT = -1, TARGET_GIVE_UP = -2 };
enum { KEY_HEADER = 0, KEY_AUX = 1 };
#define MAX_PENDING 32   /* headers extracted in one parse before the plan gives up */
#define MAX_STEPS 256    /* states visited in one parse (a graph with a loop) */

typedef struct {
    PyObject *name;      /* the headers struct's field */
    Py_ssize_t offset;   /* its slot */
    Codec *codec;
} Extract;

typedef struct {
    int source;            /* KEY_HEADER: hdr.<name>.<field>; KEY_AUX: aux.<field> */
    PyObject *name;        /* KEY_HEADER: the headers struct's field */
    Py_ssize_t offset;
    PyTypeObject *cls;     /* the class holding `field` */
    PyObject *field;
    Py_ssize_t field_offset;
} Key;

typedef struct {
    PyObject **values;   /* one per key; NULL matches anything */
    int target;
} Case;

typedef struct {
    Py_ssize_t nextracts;
    Extract *extracts;
    Py_ssize_t nkeys;    /* 0: go to `target` */
    Key *keys;
    Py_ssize_t ncases;
    Case *cases;
    int target;          /* with no keys: the next state; with keys: when none matched */
} State;

typedef struct {
    PyObject_HEAD
    PyTypeObject *hdr_cls;
    PyTypeObject *aux_cls;   /* or NULL */
    Py_ssize_t nstates;
    State *states;
} ParsePlan;

typedef struct {
    Py_ssize_t offset;
    PyObject *header;
} Pending;

/* The header now in field `offset` of the headers struct: the latest extracted in
 * this parse, else the struct's own (a new reference). */
static PyObject *
current_header(ParsePlan *self, PyObject *hdr, const Key *key, const Pending *pending,
               Py_ssize_t npending)
{
    for (Py_ssize_t i = npending - 1; i >= 0; i--)
        if (pending[i].offset == key->offset)
            return Py_NewRef(pending[i].header);
    return load_field(self->hdr_cls, hdr, key->offset, key->name);
}

/* run(buf, hdr, aux): the cursor where the parse accepted (bits), the headers it
 * extracted then stored in `hdr`; or -1, `hdr` untouched, where the plan gives up. */
static PyObject *
ParsePlan_run(ParsePlan *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "run(buf, hdr, aux)");
        return NULL;
    }
    PyObject *hdr = args[1], *aux = args[2];
    if (!Py_IS_TYPE(hdr, self->hdr_cls))
        return PyLong_FromLong(-1);  /* another class: the Python states know it */
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *data = view.buf;
    Py_ssize_t pos = 0, npending = 0;
    Pending pending[MAX_PENDING];
    int state = 0, steps = 0;
    PyObject *result = NULL;
    while (state >= 0) {
        if (++steps > MAX_STEPS)
            goto give_up;
        State *st = &self->states[state];
        for (Py_ssize_t i = 0; i < st->nextracts; i++) {
            Codec *codec = st->extracts[i].codec;
            if (pos + codec->nbytes > view.len || npending == MAX_PENDING)
                goto give_up;
            PyObject *h = codec->cls->tp_alloc(codec->cls, 0);
            if (h == NULL)
                goto error;
            if (codec_fill(codec, h, data + pos) < 0) {
                Py_DECREF(h);
                goto error;
            }
            pending[npending].offset = st->extracts[i].offset;
            pending[npending].header = h;
            npending++;
            pos += codec->nbytes;
        }
        if (st->nkeys == 0) {
            state = st->target;
            continue;
        }
        PyObject *values[8];
        Py_ssize_t nvalues = 0;
        for (; nvalues < st->nkeys; nvalues++) {
            Key *key = &st->keys[nvalues];
            PyObject *holder = key->source == KEY_AUX
                ? Py_NewRef(aux) : current_header(self, hdr, key, pending, npending);
            if (holder == NULL)
                goto values_error;
            values[nvalues] = load_field(key->cls, holder, key->field_offset, key->field);
            Py_DECREF(holder);
            if (values[nvalues] == NULL)
                goto values_error;
        }
        int next = st->target;
        for (Py_ssize_t c = 0; c < st->ncases; c++) {
            Case *cs = &st->cases[c];
            int match = 1;
            for (Py_ssize_t k = 0; match && k < st->nkeys; k++) {
                if (cs->values[k] == NULL)
                    continue;
                match = PyObject_RichCompareBool(values[k], cs->values[k], Py_EQ);
                if (match < 0)
                    goto values_error;
            }
            if (match) {
                next = cs->target;
                break;
            }
        }
        for (Py_ssize_t k = 0; k < nvalues; k++)
            Py_DECREF(values[k]);
        state = next;
        continue;
    values_error:
        for (Py_ssize_t k = 0; k < nvalues; k++)
            Py_DECREF(values[k]);
        goto error;
    }
    if (state != TARGET_ACCEPT)
        goto give_up;
    for (Py_ssize_t i = 0; i < npending; i++)
        store_slot(hdr, pending[i].offset, pending[i].header);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(pos * 8);
give_up:
    result = PyLong_FromLong(-1);
error:
    for (Py_ssize_t i = 0; i < npending; i++)
        Py_DECREF(pending[i].header);
    PyBuffer_Release(&view);
    return result;
}

/* -- construction ------------------------------------------------------------------ */

static void
clear_states(ParsePlan *self)
{
    for (Py_ssize_t s = 0; s < self->nstates; s++) {
        State *st = &self->states[s];
        for (Py_ssize_t i = 0; i < st->nextracts; i++) {
            Py_XDECREF(st->extracts[i].name);
            Py_XDECREF(st->extracts[i].codec);
        }
        PyMem_Free(st->extracts);
        for (Py_ssize_t k = 0; k < st->nkeys; k++) {
            Py_XDECREF(st->keys[k].name);
            Py_XDECREF(st->keys[k].cls);
            Py_XDECREF(st->keys[k].field);
        }
        PyMem_Free(st->keys);
        for (Py_ssize_t c = 0; c < st->ncases; c++) {
            if (st->cases[c].values == NULL)
                continue;
            for (Py_ssize_t k = 0; k < st->nkeys; k++)
                Py_XDECREF(st->cases[c].values[k]);
            PyMem_Free(st->cases[c].values);
        }
        PyMem_Free(st->cases);
    }
    PyMem_Free(self->states);
    self->states = NULL;
    self->nstates = 0;
}

static int
check_target(int target, Py_ssize_t nstates)
{
    if (target < TARGET_GIVE_UP || target >= nstates) {
        PyErr_Format(PyExc_ValueError, "state target %d out of range", target);
        return -1;
    }
    return 0;
}

/* One state: (extracts, keys, cases, target); see ParsePlan's doc. */
static int
init_state(ParsePlan *self, State *st, PyObject *spec, Py_ssize_t nstates)
{
    PyObject *extracts, *keys, *cases;
    if (!PyArg_ParseTuple(spec, "O!O!O!i:state", &PyList_Type, &extracts, &PyList_Type,
                          &keys, &PyList_Type, &cases, &st->target))
        return -1;
    if (check_target(st->target, nstates) < 0)
        return -1;
    Py_ssize_t n = PyList_GET_SIZE(extracts);
    st->extracts = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Extract));
    if (st->extracts == NULL)
        goto no_memory;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name, *codec;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(extracts, i), "UO!:extract", &name,
                              &CodecType, &codec))
            return -1;
        Extract *e = &st->extracts[i];
        e->name = Py_NewRef(name);
        e->codec = (Codec *)Py_NewRef(codec);
        st->nextracts = i + 1;
        if ((e->offset = slot_offset(self->hdr_cls, name)) < 0)
            return -1;
    }
    n = PyList_GET_SIZE(keys);
    if (n > 8) {
        PyErr_SetString(PyExc_ValueError, "a select of more than 8 keys");
        return -1;
    }
    st->keys = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Key));
    if (st->keys == NULL)
        goto no_memory;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *name, *cls, *field;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(keys, k), "OO!U:key", &name, &PyType_Type,
                              &cls, &field))
            return -1;
        Key *key = &st->keys[k];
        st->nkeys = k + 1;
        key->cls = (PyTypeObject *)Py_NewRef(cls);
        key->field = Py_NewRef(field);
        if ((key->field_offset = slot_offset(key->cls, field)) < 0)
            return -1;
        if (name == Py_None) {
            key->source = KEY_AUX;
        }
        else if (PyUnicode_Check(name)) {
            key->source = KEY_HEADER;
            key->name = Py_NewRef(name);
            if ((key->offset = slot_offset(self->hdr_cls, name)) < 0)
                return -1;
        }
        else {
            PyErr_SetString(PyExc_TypeError, "a key's struct field is a name or None");
            return -1;
        }
    }
    n = PyList_GET_SIZE(cases);
    st->cases = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Case));
    if (st->cases == NULL)
        goto no_memory;
    for (Py_ssize_t c = 0; c < n; c++) {
        PyObject *values;
        Case *cs = &st->cases[c];
        st->ncases = c + 1;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(cases, c), "O!i:case", &PyTuple_Type,
                              &values, &cs->target))
            return -1;
        if (check_target(cs->target, nstates) < 0)
            return -1;
        if (PyTuple_GET_SIZE(values) != st->nkeys) {
            PyErr_SetString(PyExc_ValueError, "a case needs a value per key");
            return -1;
        }
        cs->values = PyMem_Calloc(st->nkeys ? (size_t)st->nkeys : 1, sizeof(PyObject *));
        if (cs->values == NULL)
            goto no_memory;
        for (Py_ssize_t k = 0; k < st->nkeys; k++) {
            PyObject *v = PyTuple_GET_ITEM(values, k);
            cs->values[k] = v == Py_None ? NULL : Py_NewRef(v);
        }
    }
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

static int
ParsePlan_init(ParsePlan *self, PyObject *args, PyObject *kwds)
{
    PyObject *states, *hdr_cls, *aux_cls = Py_None;
    static char *keywords[] = {"states", "hdr_cls", "aux_cls", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!|O:ParsePlan", keywords,
                                     &PyList_Type, &states, &PyType_Type, &hdr_cls,
                                     &aux_cls))
        return -1;
    if (aux_cls != Py_None && !PyType_Check(aux_cls)) {
        PyErr_SetString(PyExc_TypeError, "aux_cls must be a class or None");
        return -1;
    }
    clear_states(self);
    Py_XSETREF(self->hdr_cls, (PyTypeObject *)Py_NewRef(hdr_cls));
    Py_XSETREF(self->aux_cls, aux_cls == Py_None ? NULL
               : (PyTypeObject *)Py_NewRef(aux_cls));
    Py_ssize_t n = PyList_GET_SIZE(states);
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "a plan needs a start state");
        return -1;
    }
    self->states = PyMem_Calloc((size_t)n, sizeof(State));
    if (self->states == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->nstates = n;
    for (Py_ssize_t s = 0; s < n; s++) {
        if (init_state(self, &self->states[s], PyList_GET_ITEM(states, s), n) < 0) {
            clear_states(self);
            return -1;
        }
    }
    return 0;
}

static void
ParsePlan_dealloc(ParsePlan *self)
{
    clear_states(self);
    Py_XDECREF(self->hdr_cls);
    Py_XDECREF(self->aux_cls);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef ParsePlan_methods[] = {
    {"run", (PyCFunction)(void (*)(void))ParsePlan_run, METH_FASTCALL,
     "run(buf, hdr, aux) -> the cursor in bits where the parse accepted (the headers "
     "it extracted stored in hdr), or -1 where the plan gives up (hdr untouched)"},
    {NULL}
};

PyTypeObject ParsePlanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "behavioral_model.pipeline._native.ParsePlan",
    .tp_doc = "ParsePlan(states, hdr_cls, aux_cls=None): a parser's common path in C. "
              "A state is (extracts, keys, cases, target): extracts (field, Codec) into "
              "the headers struct; then, without keys, go to target; with keys (field "
              "of the headers struct or None for aux, class, member), the first case "
              "(values with None for any, target) whose values equal the keys, else "
              "target. Targets: a state's index, -1 accept, -2 give up.",
    .tp_basicsize = sizeof(ParsePlan),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ParsePlan_init,
    .tp_dealloc = (destructor)ParsePlan_dealloc,
    .tp_methods = ParsePlan_methods,
};
