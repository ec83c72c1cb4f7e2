// Command binsize breaks a Go binary's size down by module and by package: every symbol in the
// file (code, read-only data, data; not bss) is given to the package its name starts with (the
// ELF symbol table), packages to the modules the binary was built from (its build info, longest
// module path first), the standard library and cgo's C symbols apart; what no symbol holds (the
// pc-line tables, type links, section padding) is the rest. With a second binary it prints each
// module's change, largest first: what a cut removed. Used by bench/binsize.sh.
//
//	binsize [-top N] BINARY [BASE_BINARY]
package main

import (
	"debug/buildinfo"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

func main() {
	top := flag.Int("top", 25, "modules and packages listed")
	flag.Parse()
	if flag.NArg() < 1 || flag.NArg() > 2 {
		fmt.Fprintln(os.Stderr, "usage: binsize [-top N] BINARY [BASE_BINARY]")
		os.Exit(2)
	}
	cur, err := measure(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "%s\t%s\t\n", flag.Arg(0), mb(cur.file))
	fmt.Fprintf(w, "symbols\t%s\t\n", mb(cur.symbols))
	fmt.Fprintf(w, "the rest (pc-line tables, type links, padding)\t%s\t\n", mb(cur.file-cur.symbols))
	w.Flush()
	fmt.Println("\nby module (symbol bytes)")
	list(cur.modules, cur.symbols, *top)
	fmt.Println("\nby package (symbol bytes)")
	list(cur.packages, cur.symbols, *top)
	if flag.NArg() == 2 {
		base, err := measure(flag.Arg(1))
		if err != nil {
			fmt.Fprintln(os.Stderr, "binsize:", err)
			os.Exit(1)
		}
		compare(cur, base, *top)
	}
}

// size is one binary's breakdown.
type size struct {
	file, symbols     int64
	modules, packages map[string]int64
}

// measure reads path's symbols and build info.
func measure(path string) (size, error) {
	st, err := os.Stat(path)
	if err != nil {
		return size{}, err
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return size{}, fmt.Errorf("%s: %w", path, err)
	}
	mods := []string{info.Main.Path}
	for _, d := range info.Deps {
		mods = append(mods, d.Path)
	}
	sort.Slice(mods, func(i, j int) bool { return len(mods[i]) > len(mods[j]) })
	f, err := elf.Open(path)
	if err != nil {
		return size{}, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return size{}, fmt.Errorf("%s: %w (a stripped binary has no symbols to break down)", path, err)
	}
	s := size{file: st.Size(), modules: map[string]int64{}, packages: map[string]int64{}}
	for _, sym := range syms {
		// Only what takes room in the file: a symbol of a section with contents (bss has none).
		i := int(sym.Section)
		if sym.Size == 0 || i <= 0 || i >= len(f.Sections) || f.Sections[i].Type == elf.SHT_NOBITS {
			continue
		}
		mod, pkg := split(sym.Name, mods)
		n := int64(sym.Size)
		s.symbols += n
		s.packages[pkg] += n
		s.modules[mod] += n
	}
	return s, nil
}

// split is the module and package a symbol's name starts with ("github.com/a/b.(*T).M" and
// "github.com/a/b.F[...]" are github.com/a/b's): the longest module path mods names that the name
// starts with, the package below it up to the name's first dot; without one, the standard
// library's package, and names without a package are cgo's C symbols. The runtime's tables
// (go:, type:) are their own.
func split(sym string, mods []string) (mod, pkg string) {
	switch {
	case strings.HasPrefix(sym, "type:"):
		return "type: (runtime type data)", "type: (runtime type data)"
	case strings.HasPrefix(sym, "go:"):
		return "go: (runtime tables)", "go: (runtime tables)"
	}
	sym = strings.ReplaceAll(sym, "%2e", ".") // gopkg.in/yaml%2ev3: a dot in a path element
	for _, m := range mods {
		if !strings.HasPrefix(sym, m) || len(sym) == len(m) || (sym[len(m)] != '.' && sym[len(m)] != '/') {
			continue
		}
		rest := sym[len(m):]
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			rest = rest[:i]
		}
		return m, m + rest
	}
	head := sym
	if i := strings.IndexAny(head, "[("); i >= 0 { // type arguments and receivers may hold paths
		head = head[:i]
	}
	slash := strings.LastIndexByte(head, '/')
	dot := strings.IndexByte(head[slash+1:], '.')
	if dot < 0 {
		return "C (cgo)", "C (cgo)"
	}
	return "std", head[:slash+1+dot]
}

// list prints the n largest of m with their share of total.
func list(m map[string]int64, total int64, n int) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	for i, k := range sorted(m) {
		if i == n {
			fmt.Fprintf(w, "(%d more)\t\t\t\n", len(m)-n)
			break
		}
		fmt.Fprintf(w, "%s\t%s\t%.1f%%\t\n", k, mb(m[k]), 100*float64(m[k])/float64(total))
	}
	w.Flush()
}

// compare prints the file's change and each module's, largest first.
func compare(cur, base size, n int) {
	fmt.Printf("\nagainst %s: file %s -> %s (%+.1f%%, ratio %.3f)\n", flag.Arg(1), mb(base.file), mb(cur.file),
		100*float64(cur.file-base.file)/float64(base.file), float64(cur.file)/float64(base.file))
	diff := map[string]int64{}
	for k, v := range cur.modules {
		diff[k] += v
	}
	for k, v := range base.modules {
		diff[k] -= v
	}
	keys := make([]string, 0, len(diff))
	for k, v := range diff {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return abs(diff[keys[i]]) > abs(diff[keys[j]]) })
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	removed := 0
	for i, k := range keys {
		if cur.modules[k] == 0 {
			removed++
		}
		if i < n {
			fmt.Fprintf(w, "%s\t%s\t%s -> %s\t\n", k, signed(diff[k]), mb(base.modules[k]), mb(cur.modules[k]))
		}
	}
	w.Flush()
	fmt.Printf("%d modules no longer linked, %d newly linked\n", removed, countNew(cur, base))
}

func countNew(cur, base size) int {
	n := 0
	for k := range cur.modules {
		if base.modules[k] == 0 {
			n++
		}
	}
	return n
}

func sorted(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	return keys
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

func signed(n int64) string { return fmt.Sprintf("%+.2f MB", float64(n)/1e6) }
