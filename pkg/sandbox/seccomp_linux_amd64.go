package sandbox

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// nativeOnly: x32 calls (the number's bit 30) are refused.
	nativeOnly = 0x40000000
)

var sysRules = append([]sysRule{
	{unix.SYS_CHMOD, 1, unix.EPERM},
	{unix.SYS_FCHMOD, 1, unix.EPERM},
	{unix.SYS_FCHMODAT, 2, unix.EPERM},
	{unix.SYS_FCHMODAT2, 2, unix.EPERM},
	{unix.SYS_OPEN, 2, unix.EPERM},
	{unix.SYS_OPENAT, 3, unix.EPERM},
	{unix.SYS_CREAT, 1, unix.EPERM},
	{unix.SYS_MKNOD, 1, unix.EPERM},
	{unix.SYS_MKNODAT, 2, unix.EPERM},
	{unix.SYS_OPENAT2, -1, unix.ENOSYS},
	{unix.SYS_IO_URING_SETUP, -1, unix.ENOSYS},
}, xattrRules(unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT)...)
