package skills

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
