package walk

import "syscall"

// adviseHugePages asks for transparent huge pages (a hint: errors are of no consequence).
func adviseHugePages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
