"""The system-call filter of the bot sandbox: what a sealed bot may not ask of the kernel at all.

bubblewrap loads it (`--seccomp FD`) just before it starts the bot's command, after the sandbox is
built, so it binds the bot and everything the bot starts; `no_new_privs` is set too, so no exec can
lift it. The filter allows every system call but those below (a deny list, as flatpak's: the
runtimes bots are written in, Python, Node.js, the JVM and compiled C++, keep working unchanged):

- EPERM for reading or steering other processes (ptrace, process_vm_readv/writev, process_madvise,
  pidfd_getfd, kcmp); mounts and namespaces (mount, umount2, pivot_root, chroot, the new mount API,
  unshare, setns, and clone with a namespace flag); kernel keyrings (keyctl, add_key, request_key);
  kernel programs, tracing and page-fault handlers (bpf, perf_event_open, userfaultfd); the kernel
  itself (kexec_load, kexec_file_load, init/finit/delete_module, reboot, swapon/swapoff, acct,
  quotactl, syslog, iopl, ioperm, vhangup, open_by_handle_at, obsolete calls); the clock
  (clock_settime, clock_adjtime, settimeofday, adjtimex); execution domains (personality, except
  PER_LINUX, 0, and the query, 0xffffffff); typing into a terminal (ioctl TIOCSTI, TIOCLINUX);
- ENOSYS for the calls whose arguments the filter cannot inspect: clone3 (libc then falls back to
  clone, which it can) and io_uring_setup/enter/register (libuv falls back to its thread pool);
- death by SIGSYS for another architecture's calls (i386 `int 0x80`, x32).

The filter is built with libseccomp (`libseccomp.so.2`, a dependency of apt and systemd on every
Debian), called through ctypes: it knows each architecture's call numbers and the x32 trap, so the
list above is written once, by name. The BPF program is built once per process (`program()`); each
sandbox gets it in a memfd of its own (`program_fd()`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
from dataclasses import dataclass
from functools import lru_cache

LIBRARY = "libseccomp.so.2"

_ACT_ALLOW = 0x7FFF0000
_ACT_KILL_PROCESS = 0x80000000
_ATTR_ACT_BADARCH = 2
_CMP_MASKED_EQ = 7
_NR_ERROR = -1  # libseccomp's __NR_SCMP_ERROR: no such call on this architecture

PER_LINUX = 0x0000
PERSONALITY_QUERY = 0xFFFFFFFF
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
"""clone()'s namespace flags (CLONE_NEWTIME exists only for unshare and clone3, both refused whole)."""


class SeccompUnavailable(RuntimeError):
    """libseccomp is missing or refused the filter; str(exc) is one line saying which."""


@dataclass(frozen=True)
class Denial:
    """System calls refused with one errno, and why (for the docs and the attack tests)."""

    why: str
    calls: tuple[str, ...]
    errno: int = errno.EPERM


def _calls(names: str) -> tuple[str, ...]:
    return tuple(names.split())


DENIED: tuple[Denial, ...] = (
    Denial(
        "reading or steering other processes",
        _calls("ptrace process_vm_readv process_vm_writev process_madvise pidfd_getfd kcmp"),
    ),
    Denial(
        "mounts and namespaces",
        _calls(
            "mount umount umount2 pivot_root chroot move_mount open_tree fsopen fsconfig fsmount fspick"
            " mount_setattr unshare setns"
        ),
    ),
    Denial("kernel keyrings", _calls("keyctl add_key request_key")),
    Denial("kernel programs, tracing and page-fault handlers", _calls("bpf perf_event_open userfaultfd")),
    Denial(
        "the kernel itself",
        _calls(
            "kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff acct"
            " quotactl quotactl_fd syslog iopl ioperm vhangup open_by_handle_at"
            # obsolete interfaces no runtime uses any more
            " nfsservctl _sysctl uselib ustat sysfs create_module get_kernel_syms query_module"
            " lookup_dcookie vm86 vm86old"
        ),
    ),
    Denial(
        "the clock",
        _calls("clock_settime clock_settime64 clock_adjtime clock_adjtime64 settimeofday adjtimex stime"),
    ),
    # ENOSYS, not EPERM: "this kernel has no such call" is what makes libc (clone3 -> clone) and
    # libuv (io_uring -> its thread pool) fall back; clone3's flags sit in memory the filter cannot read.
    Denial(
        "calls the filter cannot inspect",
        _calls("clone3 io_uring_setup io_uring_enter io_uring_register"),
        errno.ENOSYS,
    ),
)


class _ArgCmp(ctypes.Structure):
    """libseccomp's struct scmp_arg_cmp."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)  # SCMP_ACT_ERRNO


def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(LIBRARY, use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(
            f"libseccomp ({LIBRARY}) is missing, so no system-call filter can be built: "
            f"apt-get install libseccomp2 ({exc})"
        ) from None
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.restype = None
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


class _Filter:
    """A libseccomp filter context being filled in (default: allow; another architecture: kill)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.ctx = lib.seccomp_init(_ACT_ALLOW)
        if not self.ctx:
            raise SeccompUnavailable("libseccomp could not start a filter (seccomp_init failed)")
        badarch = lib.seccomp_attr_set(self.ctx, _ATTR_ACT_BADARCH, _ACT_KILL_PROCESS)
        self._check(badarch, "set its bad-arch action")

    def _check(self, result: int, what: str) -> None:
        if result < 0:
            raise SeccompUnavailable(f"libseccomp refused to {what}: {os.strerror(-result)}")

    def number(self, name: str) -> int | None:
        """The call's number on this architecture, or None where it has no such call."""
        number = int(self.lib.seccomp_syscall_resolve_name(name.encode()))
        return None if number < 0 else number  # below -1: a multiplexed pseudo-call of another arch

    def deny(self, name: str, code: int, *comparisons: tuple[int, int, int]) -> None:
        """Answer `name` with errno `code`, when every (argument, mask, value) comparison holds."""
        number = self.number(name)
        if number is None:
            return
        array = (_ArgCmp * max(1, len(comparisons)))()
        for i, (arg, mask, value) in enumerate(comparisons):
            array[i] = _ArgCmp(arg, _CMP_MASKED_EQ, mask, value)
        action = _errno_action(code)
        result = self.lib.seccomp_rule_add_array(self.ctx, action, number, len(comparisons), array)
        self._check(result, f"add a rule for {name}")

    def export(self) -> bytes:
        """The BPF program, as bwrap's --seccomp reads it."""
        fd = os.memfd_create("botarena-seccomp-build", os.MFD_CLOEXEC)
        try:
            self._check(self.lib.seccomp_export_bpf(self.ctx, fd), "export the filter")
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def release(self) -> None:
        self.lib.seccomp_release(self.ctx)


def _clone_flags_argument() -> int:
    """Which argument of clone() holds its flags: the second on s390, the first everywhere else."""
    return 1 if platform.machine().startswith("s390") else 0


def _personality_rules() -> list[tuple[int, int, int]]:
    """Masked comparisons that together match every personality but PER_LINUX and the query.

    libseccomp compares an argument once per rule, so "neither 0 nor 0xffffffff" is written as a union:
    a 32-bit value that is neither all zeros nor all ones has, read as a ring, some set bit followed by
    a clear one; rule i matches "bit i set and bit i+1 (mod 32) clear". The kernel reads the argument
    as 32 bits, and so do the masks.
    """
    return [(0, (1 << i) | (1 << ((i + 1) % 32)), 1 << i) for i in range(32)]


@lru_cache(maxsize=1)
def program() -> bytes:
    """The sandbox's BPF filter program (built once per process); SeccompUnavailable if it cannot be."""
    filt = _Filter(_library())
    try:
        for denial in DENIED:
            for name in denial.calls:
                filt.deny(name, denial.errno)
        flags = _clone_flags_argument()
        for flag in NAMESPACE_FLAGS.values():
            filt.deny("clone", errno.EPERM, (flags, flag, flag))
        for rule in _personality_rules():
            filt.deny("personality", errno.EPERM, rule)
        for request in (TIOCSTI, TIOCLINUX):
            filt.deny("ioctl", errno.EPERM, (1, 0xFFFFFFFF, request))
        return filt.export()
    finally:
        filt.release()


def program_fd() -> int:
    """A new memfd holding `program()`, at offset 0, for one bwrap (`--seccomp FD`, `pass_fds`).

    Each sandbox gets its own: bwrap reads its fd to the end, and a shared one would be at its end."""
    data = program()
    fd = os.memfd_create("botarena-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def denied_calls() -> dict[str, int]:
    """Every call the filter refuses outright, with the errno it answers (conditional ones aside)."""
    return {name: denial.errno for denial in DENIED for name in denial.calls}


__all__ = ["DENIED", "LIBRARY", "Denial", "SeccompUnavailable", "denied_calls", "program", "program_fd"]
