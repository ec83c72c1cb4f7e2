//go:build unix && !linux

package codegraph

func adviseHugePages([]byte) {}
