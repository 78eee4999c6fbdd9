/* The fabric simulator's queue of scheduled calls, in C (fabric/sim/events.py).
 *
 * A fabric run makes an event per frame per hop. With Python's heapq each event was
 * a 7-tuple on the heap, every sift compared two such tuples through the generic
 * rich comparison (an equality test, then an order test, per tuple), and the loop
 * that runs the events was Python. Here an entry keeps its order fields as C numbers
 * in one array, so a comparison is a few machine instructions and a sift touches one
 * contiguous block of memory; the loop that pops and calls runs in C.
 *
 * The order is exactly the tuple order events.py documents: (due, priority, scheduled
 * at, kind, key). A LOCAL call's key is this queue's sequence number, compared as a C
 * integer; an ARRIVAL's key is a tuple, compared as Python compares it (only when
 * everything before it is equal). Keys are unique, so no two entries ever compare
 * equal and any correct heap pops the same calls in the same order as heapq did.
 * The due time is kept as the Python number it was given too: the loop's `now` is
 * that object, an int while every time so far was one, as with heapq.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define KIND_LOCAL 1  /* events.LOCAL: the key is a sequence number */

typedef struct {
    double due;          /* as compared */
    double sent;         /* when the call was scheduled */
    long long seq;       /* a LOCAL call's key */
    int priority;
    int kind;
    PyObject *due_obj;   /* the due time as given: `now` while the call runs */
    PyObject *key;       /* an ARRIVAL's key; NULL for a LOCAL call */
    PyObject *fn;
    PyObject *args;      /* a tuple */
} Entry;

typedef struct {
    PyObject_HEAD
    PyObject *loop;             /* the EventLoop whose slots the calls see */
    Py_ssize_t now_offset, kind_offset, key_offset;  /* its slots */
    Entry *heap;
    Py_ssize_t size, capacity;
    long long next_seq;
} EventQueue;

/* Whether entry a comes before entry b; -1 with an exception if an ARRIVAL key
 * comparison failed. */
static inline int
before(const Entry *a, const Entry *b)
{
    if (a->due != b->due)
        return a->due < b->due;
    if (a->priority != b->priority)
        return a->priority < b->priority;
    if (a->sent != b->sent)
        return a->sent < b->sent;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    if (a->key == NULL || b->key == NULL)
        return a->seq < b->seq;
    return PyObject_RichCompareBool(a->key, b->key, Py_LT);
}

static int
sift_up(EventQueue *self, Py_ssize_t i)
{
    Entry *heap = self->heap;
    Entry item = heap[i];
    while (i > 0) {
        Py_ssize_t parent = (i - 1) >> 1;
        int lt = before(&item, &heap[parent]);
        if (lt < 0) {
            heap[i] = item;
            return -1;
        }
        if (!lt)
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = item;
    return 0;
}

/* Move the last entry into the hole at 0 and restore the heap. */
static int
sift_down_from_root(EventQueue *self)
{
    Entry *heap = self->heap;
    Py_ssize_t n = self->size;
    Entry item = heap[n];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n) {
            int lt = before(&heap[child + 1], &heap[child]);
            if (lt < 0)
                goto error;
            child += lt;
        }
        int lt = before(&heap[child], &item);
        if (lt < 0)
            goto error;
        if (!lt)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = item;
    return 0;
error:
    heap[i] = item;
    return -1;
}

static int
number(PyObject *obj, double *out, const char *what)
{
    double value = PyFloat_AsDouble(obj);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = value;
    return 0;
}

/* Push a new entry; steals due_obj, key, fn and args (each may be NULL only for key). */
static int
push_entry(EventQueue *self, double due, int priority, double sent, int kind,
           long long seq, PyObject *due_obj, PyObject *key, PyObject *fn, PyObject *args)
{
    if (self->size == self->capacity) {
        Py_ssize_t capacity = self->capacity ? 2 * self->capacity : 256;
        Entry *heap = PyMem_Realloc(self->heap, capacity * sizeof(Entry));
        if (heap == NULL) {
            Py_DECREF(due_obj);
            Py_XDECREF(key);
            Py_DECREF(fn);
            Py_DECREF(args);
            PyErr_NoMemory();
            return -1;
        }
        self->heap = heap;
        self->capacity = capacity;
    }
    Entry *e = &self->heap[self->size];
    e->due = due;
    e->sent = sent;
    e->seq = seq;
    e->priority = priority;
    e->kind = kind;
    e->due_obj = due_obj;
    e->key = key;
    e->fn = fn;
    e->args = args;
    return sift_up(self, self->size++);
}

static void
clear_entry(Entry *e)
{
    Py_CLEAR(e->due_obj);
    Py_CLEAR(e->key);
    Py_CLEAR(e->fn);
    Py_CLEAR(e->args);
}

static inline void
store_slot(PyObject *obj, Py_ssize_t offset, PyObject *value /* stolen */)
{
    PyObject **slot = (PyObject **)((char *)obj + offset);
    Py_XSETREF(*slot, value);
}

static Py_ssize_t
slot_offset(PyTypeObject *cls, const char *name)
{
    PyObject *descr = PyObject_GetAttrString((PyObject *)cls, name);
    if (descr == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    }
    Py_ssize_t offset = -1;
    if (descr != NULL && Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX || member->type == T_OBJECT)
            offset = member->offset;
    }
    Py_XDECREF(descr);
    if (offset < 0)
        PyErr_Format(PyExc_TypeError, "%.100s.%s is not a slot", cls->tp_name, name);
    return offset;
}

static PyObject *
read_now(EventQueue *self)
{
    PyObject *now = *(PyObject **)((char *)self->loop + self->now_offset);
    if (now == NULL)
        PyErr_SetString(PyExc_AttributeError, "the event loop has no 'now' yet");
    return now;
}

/* -- methods ----------------------------------------------------------------------- */

static int
EventQueue_init(EventQueue *self, PyObject *args, PyObject *kwds)
{
    PyObject *loop;
    if (!PyArg_ParseTuple(args, "O:EventQueue", &loop))
        return -1;
    PyTypeObject *cls = Py_TYPE(loop);
    if ((self->now_offset = slot_offset(cls, "now")) < 0 ||
        (self->kind_offset = slot_offset(cls, "_kind")) < 0 ||
        (self->key_offset = slot_offset(cls, "_key")) < 0)
        return -1;
    Py_XSETREF(self->loop, Py_NewRef(loop));
    return 0;
}

PyDoc_STRVAR(later_doc,
"later(delay_us, fn, *args)\n--\n\n"
"Run fn(*args) delay_us microseconds after the loop's now (a LOCAL call).");

static PyObject *
EventQueue_later(EventQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2) {
        PyErr_SetString(PyExc_TypeError, "later() needs a delay and a function");
        return NULL;
    }
    PyObject *now = read_now(self);
    if (now == NULL)
        return NULL;
    double sent;
    if (number(now, &sent, "now") < 0)
        return NULL;
    /* The due time as Python adds it (an int plus an int stays an int). */
    PyObject *due_obj = PyNumber_Add(now, args[0]);
    if (due_obj == NULL)
        return NULL;
    double due;
    if (number(due_obj, &due, "the due time") < 0) {
        Py_DECREF(due_obj);
        return NULL;
    }
    PyObject *call_args = PyTuple_New(nargs - 2);
    if (call_args == NULL) {
        Py_DECREF(due_obj);
        return NULL;
    }
    for (Py_ssize_t i = 2; i < nargs; i++)
        PyTuple_SET_ITEM(call_args, i - 2, Py_NewRef(args[i]));
    if (push_entry(self, due, 1, sent, KIND_LOCAL, self->next_seq++, due_obj, NULL,
                   Py_NewRef(args[1]), call_args) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(push_doc,
"push(due, priority, sent, kind, key, fn, args)\n--\n\n"
"Schedule fn(*args) at due. kind LOCAL (1) takes the next sequence number as its key\n"
"(key must be None); any other kind is ordered by key among equals.");

static PyObject *
EventQueue_push(EventQueue *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "push() takes 7 arguments");
        return NULL;
    }
    double due, sent;
    if (number(args[0], &due, "due") < 0 || number(args[2], &sent, "sent") < 0)
        return NULL;
    long priority = PyLong_AsLong(args[1]);
    if (priority == -1 && PyErr_Occurred())
        return NULL;
    long kind = PyLong_AsLong(args[3]);
    if (kind == -1 && PyErr_Occurred())
        return NULL;
    if (!PyTuple_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError, "push(): args must be a tuple");
        return NULL;
    }
    PyObject *key = NULL;
    long long seq = 0;
    if (kind == KIND_LOCAL) {
        if (args[4] != Py_None) {
            PyErr_SetString(PyExc_ValueError, "push(): a LOCAL call's key is made here");
            return NULL;
        }
        seq = self->next_seq++;
    }
    else {
        key = Py_NewRef(args[4]);
    }
    if (push_entry(self, due, (int)priority, sent, (int)kind, seq, Py_NewRef(args[0]), key,
                   Py_NewRef(args[5]), Py_NewRef(args[6])) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(run_until_doc,
"run_until(until)\n--\n\n"
"Pop and run, in order, the calls due before until, setting the loop's now, _kind and\n"
"_key to each one's before calling it. An exception a call raises propagates (the\n"
"call is gone from the queue by then).");

static PyObject *
EventQueue_run_until(EventQueue *self, PyObject *arg)
{
    double until;
    if (number(arg, &until, "until") < 0)
        return NULL;
    PyObject *loop = self->loop;
    while (self->size > 0 && self->heap[0].due < until) {
        Entry e = self->heap[0];
        self->size--;
        if (self->size > 0 && sift_down_from_root(self) < 0) {
            clear_entry(&e);
            return NULL;
        }
        PyObject *key = e.key;
        if (key == NULL) {
            key = PyLong_FromLongLong(e.seq);
            if (key == NULL) {
                clear_entry(&e);
                return NULL;
            }
        }
        PyObject *kind = PyLong_FromLong(e.kind);
        if (kind == NULL) {
            if (key != e.key)
                Py_DECREF(key);
            clear_entry(&e);
            return NULL;
        }
        store_slot(loop, self->now_offset, e.due_obj);
        store_slot(loop, self->kind_offset, kind);
        store_slot(loop, self->key_offset, key);
        PyObject *result = PyObject_Call(e.fn, e.args, NULL);
        Py_DECREF(e.fn);
        Py_DECREF(e.args);
        if (result == NULL)
            return NULL;
        Py_DECREF(result);
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(next_due_doc,
"next_due()\n--\n\nWhen the first call is due (as given), or None if none is scheduled.");

static PyObject *
EventQueue_next_due(EventQueue *self, PyObject *Py_UNUSED(ignored))
{
    if (self->size == 0)
        Py_RETURN_NONE;
    return Py_NewRef(self->heap[0].due_obj);
}

static int
EventQueue_traverse(EventQueue *self, visitproc visit, void *arg)
{
    Py_VISIT(self->loop);
    for (Py_ssize_t i = 0; i < self->size; i++) {
        Entry *e = &self->heap[i];
        Py_VISIT(e->due_obj);
        Py_VISIT(e->key);
        Py_VISIT(e->fn);
        Py_VISIT(e->args);
    }
    return 0;
}

static int
EventQueue_clear(EventQueue *self)
{
    Py_CLEAR(self->loop);
    while (self->size > 0)
        clear_entry(&self->heap[--self->size]);
    return 0;
}

static void
EventQueue_dealloc(EventQueue *self)
{
    PyObject_GC_UnTrack(self);
    EventQueue_clear(self);
    PyMem_Free(self->heap);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef EventQueue_methods[] = {
    {"later", (PyCFunction)(void (*)(void))EventQueue_later, METH_FASTCALL, later_doc},
    {"push", (PyCFunction)(void (*)(void))EventQueue_push, METH_FASTCALL, push_doc},
    {"run_until", (PyCFunction)EventQueue_run_until, METH_O, run_until_doc},
    {"next_due", (PyCFunction)EventQueue_next_due, METH_NOARGS, next_due_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(EventQueue_doc,
"EventQueue(loop)\n--\n\n"
"The calls scheduled on loop (an object with slots now, _kind and _key), in the\n"
"order (due, priority, scheduled at, kind, key).");

static PyTypeObject EventQueueType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fabric.sim._eventq.EventQueue",
    .tp_basicsize = sizeof(EventQueue),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = EventQueue_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)EventQueue_init,
    .tp_dealloc = (destructor)EventQueue_dealloc,
    .tp_traverse = (traverseproc)EventQueue_traverse,
    .tp_clear = (inquiry)EventQueue_clear,
    .tp_methods = EventQueue_methods,
};

static struct PyModuleDef eventq_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fabric.sim._eventq",
    .m_doc = "The fabric simulator's queue of scheduled calls (fabric/sim/events.py).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__eventq(void)
{
    if (PyType_Ready(&EventQueueType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&eventq_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddObjectRef(module, "EventQueue", (PyObject *)&EventQueueType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
