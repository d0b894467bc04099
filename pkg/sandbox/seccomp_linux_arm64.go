package sandbox

import "golang.org/x/sys/unix"

const (
	auditArch  = unix.AUDIT_ARCH_AARCH64
	nativeOnly = 0
)

var sysRules = append([]sysRule{
	{unix.SYS_FCHMOD, 1, unix.EPERM},
	{unix.SYS_FCHMODAT, 2, unix.EPERM},
	{unix.SYS_FCHMODAT2, 2, unix.EPERM},
	{unix.SYS_OPENAT, 3, unix.EPERM},
	{unix.SYS_MKNODAT, 2, unix.EPERM},
	{unix.SYS_OPENAT2, -1, unix.ENOSYS},
	{unix.SYS_IO_URING_SETUP, -1, unix.ENOSYS},
}, xattrRules(unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT)...)
