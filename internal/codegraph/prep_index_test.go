package codegraph_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// TestTypeMacroReturnTypes indexes definitions whose return type is written with a type macro,
// as glibc's dynamic linker writes them, and checks that each is found under its own name, with
// its calls. Without joinTypeMacros, pltenter is lost (its return type line is blanked as a
// macro invocation), map_segment is read as a function ElfW and the struct E(link_map) as a
// function link_map.
func TestTypeMacroReturnTypes(t *testing.T) {
	src := `#include <link.h>

int counter;

ElfW(Addr)
pltenter (ElfW(Sym) *sym, unsigned int ndx)
{
  return lookup (sym, ndx);
}

static const ElfW(Sym) *
check_match (const char *name, const ElfW(Sym) *ref)
{
  return find (name, ref);
}

const ElfW(Sym) *lookup_direct (const char *name)
{
  return check_match (name, 0);
}
libc_hidden_def (lookup_direct)

static __always_inline ElfW(Addr)
map_segment (const struct loadcmd *c, ElfW(Addr) mappref)
{
  return __mmap (c, mappref);
}

int
after (void)
{
  return pltenter (0, 1) != map_segment (0, 0);
}

struct E(link_map)
{
  int l_ns;
};
`
	repo := writeRepo(t, map[string][]byte{"elf/dl-lookup.c": []byte(src)})
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range ix.Funcs {
		got = append(got, defStrings([]codegraph.Func{f})...)
	}
	want := []string{
		"elf/dl-lookup.c:5-9 pltenter function",
		"elf/dl-lookup.c:11-15 check_match function static",
		"elf/dl-lookup.c:17-20 lookup_direct function",
		"elf/dl-lookup.c:23-27 map_segment function static",
		"elf/dl-lookup.c:29-33 after function",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	wantCallers := []string{"lookup_direct check_match elf/dl-lookup.c:19 direct"}
	if diff := cmp.Diff(wantCallers, callerStrings(ix.Callers("check_match", codegraph.Near{}))); diff != "" {
		t.Errorf("callers of check_match (-want +got):\n%s", diff)
	}
	wantCallees := []string{"lookup 8 direct"}
	if diff := cmp.Diff(wantCallees, calleeStrings(ix.Callees("pltenter", codegraph.Near{}))); diff != "" {
		t.Errorf("callees of pltenter (-want +got):\n%s", diff)
	}
	wantCallees = []string{"pltenter 32 direct", "map_segment 32 direct"}
	if diff := cmp.Diff(wantCallees, calleeStrings(ix.Callees("after", codegraph.Near{}))); diff != "" {
		t.Errorf("callees of after (-want +got):\n%s", diff)
	}
}

// TestCommentsInMacroBodies indexes a function after a multi-line macro whose body holds a
// comment, as glibc writes them: without blankDirectiveComments tree-sitter ends the macro at the
// comment and parses the rest as code, and the function after it is lost.
func TestCommentsInMacroBodies(t *testing.T) {
	src := `#define RETURN_CLEAR_ALARM(code)                  \
  do {                                            \
    /* Clear alarm.  */                           \
    alarm (0);                                    \
    /* Restore the old set.  We don't need to know \
       about the current one.*/                   \
    __sigprocmask (SIG_SETMASK, &saved_set, NULL); \
    return (code);                                \
  } while (0)


int
__lckpwdf (void)
{
  return helper (1);
}
`
	repo := writeRepo(t, map[string][]byte{"shadow/lckpwdf.c": []byte(src)})
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"shadow/lckpwdf.c:1-9 RETURN_CLEAR_ALARM macro",
		"shadow/lckpwdf.c:12-16 __lckpwdf function",
	}
	if diff := cmp.Diff(want, defStrings(ix.Funcs)); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"helper 15 direct"}, calleeStrings(ix.Callees("__lckpwdf", codegraph.Near{}))); diff != "" {
		t.Errorf("callees of __lckpwdf (-want +got):\n%s", diff)
	}
}

// TestExternTypeof indexes an ifunc selector after declarations typed with __typeof, as glibc's
// multiarch files write them: without the blanking, tree-sitter reads a definition OPTIMIZE that
// swallows the selector.
func TestExternTypeof(t *testing.T) {
	src := `extern __typeof (REDIRECT_NAME) OPTIMIZE (ia32) attribute_hidden;
extern __typeof (REDIRECT_NAME) OPTIMIZE (ssse3) attribute_hidden;

static inline void *
IFUNC_SELECTOR (void)
{
  const struct cpu_features* cpu_features = __get_cpu_features ();
  return OPTIMIZE (ia32);
}
`
	repo := writeRepo(t, map[string][]byte{"multiarch/wcscpy.c": []byte(src)})
	ix, err := codegraph.Open(context.Background(), repo, codegraph.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"multiarch/wcscpy.c:4-9 IFUNC_SELECTOR function static"}, defStrings(ix.Funcs)); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
}
