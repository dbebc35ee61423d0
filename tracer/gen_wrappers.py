#!/usr/bin/env python3
"""Generates libpas2p's MPI wrappers from tracer/mpi_calls.tbl (one table, two languages).

usage: gen_wrappers.py TABLE OUTDIR

Writes OUTDIR/pas2p_calls.h   call ids, classes and names (no MPI dependency)
       OUTDIR/pas2p_calls.c   the name and class tables
       OUTDIR/wrappers_c.c    MPI_<Name> C wrappers calling PMPI_<Name>
       OUTDIR/wrappers_f.c    mpi_<name>_ (and __, upper-case, _f08_) Fortran wrappers
                              calling Open MPI's pmpi_<name>_ (found at the first call)

Every wrapper has the same shape (see tracer/rt.h):
    if not tracing: call PMPI and return
    pas2p_pre(cx, CALL, LANG)          timestamp, counters
    [pre-hook]                         snapshot what the call overwrites (requests)
    rc = PMPI...
    if pas2p_post(cx, rc): recorder(s); pas2p_commit(cx)
    pas2p_release(cx)
"""
import os
import re
import sys

CLASS_OF_RECORDER = {
    "rec_send": "SEND", "rec_isend": "SEND",
    "rec_recv": "RECV", "rec_irecv": "RECV", "rec_iprobe": "RECV",
    "rec_message": "RECV", "rec_mrecv": "RECV", "rec_imrecv": "RECV",
    "rec_sendrecv": "SENDRECV",
    "rec_complete": "COMPLETION", "rec_request_free": "COMPLETION", "rec_start": "START",
    "rec_coll": "COLLECTIVE", "rec_vcoll": "COLLECTIVE", "rec_wcoll": "COLLECTIVE",
    "rec_reduce_scatter": "COLLECTIVE", "rec_icoll": "COLLECTIVE", "rec_ncoll": "COLLECTIVE",
    "rec_comm_new": "COMM", "rec_comm_new_group": "COMM", "rec_intercomm_new": "COMM", "rec_comm_free": "COMM",
    "rec_simple": "ENV", "-": "ENV",
}


class Param:
    def __init__(self, decl):
        decl = decl.strip()
        m = re.match(r"^(.*?)(\w+)\s*(\[\])?$", decl)
        if not m:
            raise SystemExit(f"cannot parse parameter '{decl}'")
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        self.array = bool(m.group(3))
        self.decl = decl
        base = self.ctype.replace("const", "").strip()
        self.base = base  # e.g. 'int', 'int *', 'MPI_Comm *', 'void *'

    def c_decl(self):
        return self.decl

    def f_decl(self):
        if self.base in ("void *",):
            return f"{'const ' if 'const' in self.ctype else ''}void *{self.name}"
        return f"MPI_Fint *{self.name}"

    def is_status(self):
        return self.base == "MPI_Status" and self.array or self.base == "MPI_Status *"

    # value of the parameter as a C expression, after the PMPI call
    def c_value(self):
        if self.base in ("MPI_Comm *", "MPI_Request *", "MPI_Message *", "int *") and not self.array:
            return f"*{self.name}"
        return self.name

    def f_value(self):
        b, n = self.base, self.name
        if self.array:
            if b == "int":
                return f"(const int *){n}"
            raise SystemExit(f"no Fortran value conversion for array parameter '{self.decl}' "
                             f"(pass it raw with &{n} and LANG)")
        if b == "int":
            return f"(int)*{n}"
        if b == "int *":
            return f"(*{n} != 0)" if n == "flag" else f"(int)*{n}"
        conv = {"MPI_Datatype": "PMPI_Type_f2c", "MPI_Comm": "PMPI_Comm_f2c",
                "MPI_Comm *": "PMPI_Comm_f2c", "MPI_Request *": "PMPI_Request_f2c",
                "MPI_Group": "PMPI_Group_f2c", "MPI_Op": "PMPI_Op_f2c",
                "MPI_Message *": "PMPI_Message_f2c",
                "MPI_Info": "PMPI_Info_f2c"}
        if b in conv:
            return f"{conv[b]}(*{n})"
        if b == "MPI_Status *":
            return f"&pas2p_cst_{n}"
        raise SystemExit(f"no Fortran value conversion for '{self.decl}'")


class Call:
    def __init__(self, line, lineno):
        fields = [f.strip() for f in line.split("|")]
        if len(fields) < 4:
            raise SystemExit(f"mpi_calls.tbl:{lineno}: expected 'ID | Name | recorder | params'")
        # ID '-': not traced, only counted and timed (pas2p_rt_untraced_*); no call id, no
        # event.  Recorder 'count' (one-sided communication), 'count_io' (MPI-IO) or
        # 'count_nbr' (neighbourhood collectives)
        # ID '=Name': traced, but recorded as call Name (no id of its own): the matched
        # probes' MPI_Mrecv is a receive, MPI_Mprobe a probe
        self.as_call = fields[0][1:] if fields[0].startswith("=") else None
        if self.as_call:
            fields[0] = "-1"
        self.untraced = fields[0] == "-"
        if self.untraced:
            kinds = {"count": "PAS2P_UNTRACED_RMA", "count_io": "PAS2P_UNTRACED_IO",
                     "count_nbr": "PAS2P_UNTRACED_NBR"}
            if fields[2] not in kinds:
                raise SystemExit(f"mpi_calls.tbl:{lineno}: an untraced call's recorder is "
                                 f"'count', 'count_io' or 'count_nbr'")
            self.kind = kinds[fields[2]]
            fields[2] = "-"
        self.id = -1 if self.untraced else int(fields[0])
        self.name = fields[1]
        self.rec = fields[2]
        self.params = [Param(p) for p in fields[3].split(",") if p.strip()]
        self.opts = {}
        opt = fields[4] if len(fields) > 4 else ""
        for m in re.finditer(r"(\w+)(?:=(.*?))?(?=\s+\w+=|\s+nof\b|$)", opt):
            self.opts[m.group(1)] = (m.group(2) or "").strip()
        self.flow = self.opts.get("flow")
        recname = self.rec.split(";")[-1].strip().split("(")[0]
        self.klass = CLASS_OF_RECORDER.get(recname)
        if self.klass is None:
            raise SystemExit(f"mpi_calls.tbl:{lineno}: unknown recorder '{recname}'")
        if "f" in self.opts:
            self.fparams = [Param(p) for p in self.opts["f"].split(",") if p.strip()]
        else:
            self.fparams = self.params

    @property
    def enum(self):
        return f"PAS2P_CALL_{self.as_call or self.name}"


def parse(path):
    calls = []
    for i, raw in enumerate(open(path), 1):
        line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        calls.append(Call(line, i))
    ids = [c.id for c in calls if not c.untraced and not c.as_call]
    if len(set(ids)) != len(ids):
        raise SystemExit("mpi_calls.tbl: duplicate call id")
    return calls


def subst(expr, params, lang):
    """Replace parameter names in a recorder expression by their C value."""
    byname = {p.name: p for p in params}

    def rep(m):
        amp, name = m.group(1), m.group(2)
        if name == "LANG":
            return "PAS2P_LANG_F" if lang == "f" else "PAS2P_LANG_C"
        if name not in byname:
            return m.group(0)
        p = byname[name]
        if amp:
            return f"(void *){name}"
        return p.f_value() if lang == "f" else p.c_value()

    return re.sub(r"(&?)\b([A-Za-z_]\w*)\b(?!\s*\()", rep, expr)


def recorder_stmts(call, params, lang):
    return "; ".join(subst(r.strip(), params, lang) for r in call.rec.split(";")) + ";"


def status_prologue(params, lang, count_of):
    """Substitute a scratch status when the user passed MPI_STATUS(ES)_IGNORE."""
    out = []
    for p in params:
        if p.base == "MPI_Status *" and not p.array:
            if lang == "c":
                out.append(f"    MPI_Status pas2p_st_{p.name};\n"
                           f"    if ({p.name} == MPI_STATUS_IGNORE) {p.name} = &pas2p_st_{p.name};")
            else:
                out.append(f"    MPI_Fint pas2p_st_{p.name}[PAS2P_F_STATUS_SIZE];\n"
                           f"    if ({p.name} == MPI_F_STATUS_IGNORE) {p.name} = pas2p_st_{p.name};")
        elif p.base == "MPI_Status" and p.array:
            n = count_of
            if lang == "c":
                out.append(f"    if ({p.name} == MPI_STATUSES_IGNORE) {p.name} = pas2p_statuses(cx, {n});")
            else:
                fn = n if n == "1" else f"(int)*{n}"
                out.append(f"    if ({p.name} == MPI_F_STATUSES_IGNORE) {p.name} = pas2p_fstatuses(cx, {fn});")
    return out


def count_param(call):
    for n in ("count", "incount"):
        if any(p.name == n for p in call.params):
            return n
    return "1"


def gen_c(call):
    ps = call.params
    decl = ", ".join(p.c_decl() for p in ps) or "void"
    args = ", ".join(p.name for p in ps)
    o = [f"int MPI_{call.name}({decl})\n{{"]
    if call.untraced:
        o.append("    uint64_t t0_ = pas2p_rt_untraced_begin();")
        o.append(f"    int rc = PMPI_{call.name}({args});")
        o.append(f"    pas2p_rt_untraced_end({call.kind}, t0_);")
        o.append("    return rc;\n}\n")
        return "\n".join(o)
    if call.flow == "init":
        o.append("    pas2p_clock_start();")
        o.append(f"    int rc = PMPI_{call.name}({args});")
        o.append(f"    pas2p_rt_start(rc, {call.enum}, PAS2P_LANG_C);")
        o.append("    return rc;\n}\n")
        return "\n".join(o)
    if call.flow == "finalize":
        o.append("    pas2p_rt_finish(PAS2P_LANG_C);")
        o.append(f"    return PMPI_{call.name}({args});\n}}\n")
        return "\n".join(o)
    o.append(f"    if (!pas2p_rt_active()) return PMPI_{call.name}({args});")
    o.append("    pas2p_cx_t cx_, *cx = &cx_;")
    o.append(f"    pas2p_pre(cx, {call.enum}, PAS2P_LANG_C);")
    o += status_prologue(ps, "c", count_param(call))
    if "pre" in call.opts:
        o.append(f"    {subst(call.opts['pre'], ps, 'c')};")
    if call.flow == "abort":
        o.append(f"    if (pas2p_post(cx, MPI_SUCCESS)) {{ {recorder_stmts(call, ps, 'c')} pas2p_commit(cx); }}")
        o.append("    pas2p_release(cx);")
        o.append("    pas2p_rt_abort();")
        o.append(f"    return PMPI_{call.name}({args});\n}}\n")
        return "\n".join(o)
    o.append(f"    int rc = PMPI_{call.name}({args});")
    o.append(f"    if (pas2p_post(cx, rc)) {{ {recorder_stmts(call, ps, 'c')} pas2p_commit(cx); }}")
    o.append("    pas2p_release(cx);")
    o.append("    return rc;\n}\n")
    return "\n".join(o)


# The Fortran entry points a wrapper answers to: mpif.h and `use mpi` (the four manglings),
# and `use mpi_f08`, whose Open MPI procedures (mpi_send_f08_ ...) take the same arguments:
# handles are derived types holding the integer handle (passed by reference: a pointer to
# it), statuses the same six integers, choice buffers their address (the non-TS bindings:
# ..._f08ts_ would take descriptors), and they end in the same C implementation the mpif-h
# ones do.  The one difference, an absent optional ierror (a NULL pointer), the wrappers
# take (IERR_LOCAL).
#
# Not the bare lower-case name (mpi_send): a C library may name its own functions so (R's
# Rmpi.so defines mpi_comm_size, mpi_send, mpi_allreduce ... as its entry points), and a
# preloaded libpas2p's definition would take its calls (a crash).  Only a Fortran compiler
# told not to append an underscore (-fno-underscoring) calls those: not traced.  For the
# same reason libpas2p does not link Open MPI's Fortran library (whose own bare names,
# mpi_comm_size ..., would then be in the global scope before the application's): the
# wrappers find pmpi_<name>_ there at their first call (pas2p_f_sym, rt.h).
def f_symbols(call):
    lname = call.name.lower()
    return (f"mpi_{lname}_", f"mpi_{lname}__", f"MPI_{call.name.upper()}", f"mpi_{lname}_f08_")


def f_pmpi(lname, fdecl):
    """the PMPI Fortran entry, found at the first call: its pointer's type and slot, and
    the statement that sets the wrapper's local pmpi_ to it"""
    return ([f"typedef void (*pas2p_fpt_{lname})({fdecl});", f"static void *pas2p_fp_{lname};"],
            f"    pas2p_fpt_{lname} pmpi_ = (pas2p_fpt_{lname})pas2p_f_sym(&pas2p_fp_{lname}, \"pmpi_{lname}_\");")


IERR_LOCAL = "    MPI_Fint ierr_ = MPI_SUCCESS, *ierr = ierr_in ? ierr_in : &ierr_;"


def gen_f(call):
    ps = call.fparams
    lname = call.name.lower()
    if call.untraced:  # every Fortran argument is a pointer, passed through untouched
        # a character argument comes with its length, hidden after ierr: passed on too
        lens = [f"plen_{p.name}" for p in ps if "char" in p.ctype]
        fdecl = ", ".join([f"void *{p.name}" for p in ps] + ["MPI_Fint *ierr"] +
                          [f"size_t {n}" for n in lens])
        wdecl = fdecl.replace("MPI_Fint *ierr", "MPI_Fint *ierr_in")
        fargs = ", ".join([p.name for p in ps] + ["ierr"] + lens)
        fn = f"pas2p_f_{lname}"
        decls, get = f_pmpi(lname, fdecl)
        o = decls + [f"static void {fn}({wdecl})\n{{", IERR_LOCAL, get,
                     "    uint64_t t0_ = pas2p_rt_untraced_begin();", f"    pmpi_({fargs});",
                     f"    pas2p_rt_untraced_end({call.kind}, t0_);", "}"]
        for sym in f_symbols(call):
            o.append(f"void {sym}({fdecl}) __attribute__((alias(\"{fn}\")));")
        return "\n".join(o) + "\n"
    fdecl = ", ".join([p.f_decl() for p in ps] + ["MPI_Fint *ierr"])
    wdecl = ", ".join([p.f_decl() for p in ps] + ["MPI_Fint *ierr_in"])
    fargs = ", ".join([p.name for p in ps] + ["ierr"])
    fn = f"pas2p_f_{lname}"
    decls, get = f_pmpi(lname, fdecl)
    o = decls + [f"static void {fn}({wdecl})\n{{", IERR_LOCAL, get]
    if call.flow == "init":
        o.append("    pas2p_clock_start();")
        o.append(f"    pmpi_({fargs});")
        o.append(f"    pas2p_rt_start((int)*ierr, {call.enum}, PAS2P_LANG_F);")
    elif call.flow == "finalize":
        o.append("    pas2p_rt_finish(PAS2P_LANG_F);")
        o.append(f"    pmpi_({fargs});")
    else:
        o.append(f"    if (!pas2p_rt_active()) {{ pmpi_({fargs}); return; }}")
        o.append("    pas2p_cx_t cx_, *cx = &cx_;")
        o.append(f"    pas2p_pre(cx, {call.enum}, PAS2P_LANG_F);")
        o += status_prologue(ps, "f", count_param(call))
        if "pre" in call.opts:
            o.append(f"    {subst(call.opts['pre'], ps, 'f')};")
        if call.flow == "abort":
            o.append(f"    if (pas2p_post(cx, MPI_SUCCESS)) {{ {recorder_stmts(call, ps, 'f')} pas2p_commit(cx); }}")
            o.append("    pas2p_release(cx);")
            o.append("    pas2p_rt_abort();")
            o.append(f"    pmpi_({fargs});")
        else:
            o.append(f"    pmpi_({fargs});")
            post = []
            for p in ps:
                if p.base == "MPI_Status *" and not p.array and re.search(rf"\b{p.name}\b(?<!&{p.name})", call.rec):
                    post.append(f"MPI_Status pas2p_cst_{p.name}; PMPI_Status_f2c({p.name}, &pas2p_cst_{p.name});")
            o.append(f"    if (pas2p_post(cx, (int)*ierr)) {{ {' '.join(post)} {recorder_stmts(call, ps, 'f')} pas2p_commit(cx); }}")
            o.append("    pas2p_release(cx);")
    o.append("}")
    for sym in f_symbols(call):
        o.append(f"void {sym}({fdecl}) __attribute__((alias(\"{fn}\")));")
    return "\n".join(o) + "\n"


HEADER_NOTE = "/* Generated by tracer/gen_wrappers.py from tracer/mpi_calls.tbl: do not edit. */\n"


def main():
    table, outdir = sys.argv[1], sys.argv[2]
    calls = parse(table)
    traced = [c for c in calls if not c.untraced and not c.as_call]
    os.makedirs(outdir, exist_ok=True)
    classes = ["ENV", "SEND", "RECV", "SENDRECV", "START", "COMPLETION", "COLLECTIVE", "COMM"]
    with open(os.path.join(outdir, "pas2p_calls.h"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("#ifndef PAS2P_CALLS_H\n#define PAS2P_CALLS_H\n\n")
        f.write("/* Call ids stored in trace files (stable: see tracer/mpi_calls.tbl). */\nenum pas2p_call {\n")
        f.write("    PAS2P_CALL_NONE = 0,\n")
        for c in traced:
            f.write(f"    {c.enum} = {c.id},\n")
        f.write(f"    PAS2P_CALL_LIMIT = {max(c.id for c in traced) + 1}\n}};\n\n")
        f.write("/* What a call does, for summaries and the analyzer. */\nenum pas2p_call_class {\n")
        for i, k in enumerate(classes):
            f.write(f"    PAS2P_CLASS_{k} = {i},\n")
        f.write(f"    PAS2P_CLASS_COUNT = {len(classes)}\n}};\n\n")
        f.write("/* \"MPI_Send\" etc.; NULL for an id not in the table. */\n")
        f.write("const char *pas2p_call_name(unsigned call);\n")
        f.write("/* Class of a known call; -1 for an id not in the table (inline: the analyzer asks it\n"
                " * of every event, in each of its passes) */\n")
        f.write("extern const signed char pas2p_call_classes_[PAS2P_CALL_LIMIT]; /* class + 1, 0 */\n")
        f.write("static inline int pas2p_call_class(unsigned call)\n{\n"
                "    return call < PAS2P_CALL_LIMIT ? pas2p_call_classes_[call] - 1 : -1;\n}\n")
        f.write("/* Call id of \"MPI_Send\" or \"Send\" (case-insensitive); 0 if unknown. */\n")
        f.write("unsigned pas2p_call_by_name(const char *name);\n\n#endif\n")
    with open(os.path.join(outdir, "pas2p_calls.c"), "w") as f:
        f.write(HEADER_NOTE)
        f.write("#include <stddef.h>\n#include <strings.h>\n#include \"pas2p_calls.h\"\n\n")
        f.write("static const char *const names[PAS2P_CALL_LIMIT] = {\n")
        for c in traced:
            f.write(f"    [{c.enum}] = \"MPI_{c.name}\",\n")
        f.write("};\n\nconst signed char pas2p_call_classes_[PAS2P_CALL_LIMIT] = {\n")
        for c in traced:
            f.write(f"    [{c.enum}] = PAS2P_CLASS_{c.klass} + 1,\n")
        f.write("};\n\n")
        f.write("const char *pas2p_call_name(unsigned call)\n{\n"
                "    return call < PAS2P_CALL_LIMIT ? names[call] : NULL;\n}\n\n")
        f.write("unsigned pas2p_call_by_name(const char *name)\n{\n"
                "    for (unsigned i = 1; i < PAS2P_CALL_LIMIT; i++)\n"
                "        if (names[i] && (!strcasecmp(names[i], name) || !strcasecmp(names[i] + 4, name)))\n"
                "            return i;\n    return 0;\n}\n")
    with open(os.path.join(outdir, "wrappers_c.c"), "w") as f:
        f.write(HEADER_NOTE + "#include \"rt.h\"\n\n")
        for c in calls:
            f.write(gen_c(c) + "\n")
    with open(os.path.join(outdir, "wrappers_f.c"), "w") as f:
        f.write(HEADER_NOTE + "#include \"rt.h\"\n\n")
        for c in calls:
            if "nof" in c.opts:
                continue
            f.write(gen_f(c) + "\n")


if __name__ == "__main__":
    main()
