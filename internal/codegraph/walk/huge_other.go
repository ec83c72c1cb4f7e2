//go:build unix && !linux

package walk

func adviseHugePages([]byte) {}
