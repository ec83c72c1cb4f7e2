// Package snapshot materialises a repository at a commit, once, without .git, and gives
// read access to it that cannot leave it.
//
// # The cache
//
// A Cache keeps snapshots under CACHE/snapshots:
//
//	CACHE/snapshots/KEY/tree/          the commit's files, blobs as the object store holds them
//	CACHE/snapshots/KEY/snapshot.json  Info: repository, commit, tree id, counts, what was left out
//	CACHE/snapshots/KEY.lock           flock taken while one process extracts KEY
//	CACHE/snapshots/.tmp-KEY-*         an extraction under way (or left by a process that died:
//	                                   removed by the next one to take the lock)
//
// KEY (see Key) hashes the key version (2), the repository's git directory, the full commit id
// and the extraction file size limit. Version 1 snapshots (git archive's output, with
// export-subst, export-ignore and filters applied) are never reused: their keys differ.
//
// # Repository code never runs
//
// A clone under --repos is untrusted: its configuration, attributes and hooks can name
// commands (filter.*.smudge, core.fsmonitor, a pager, hooks) and files elsewhere (include.path).
// So the git directory is found without git (findGitDir), and git is shown only a view of the
// repository of vulnbench's own making (gitView): its objects, refs, packed-refs and shallow
// list, with a configuration that says the object format and nothing else, in an environment
// with no system or user configuration, no replace refs and no lazy fetches. The commit is
// looked up with rev-parse, its tree listed with ls-tree -r and every blob written as cat-file
// --batch returns it: no filter, eol conversion, export-subst or export-ignore is applied
// (export-ignore would let a repository hide files from what is analysed). With
// Options.Sandbox, git itself runs in a bubblewrap sandbox that shows it the view read-only and
// nothing else. Object alternates outside the git directory are readable on the host only.
//
// A snapshot is extracted into a temporary directory beside its final place and published by
// renaming it, so a snapshot directory is complete or absent. Gets of one snapshot in a process
// share one extraction; across processes the lock file makes the others wait and then use it
// (where there is no flock, both extract and the rename keeps the first). Extraction streams
// ls-tree's entries and leaves out (listed in Info.Skipped, with the reason) names that are not
// plain relative paths (absolute, .. or empty elements, a backslash) or have a .git element,
// which git allows in crafted trees; files over Options.MaxFileSize (64 MiB), entries that
// clash with an earlier one and other entry types; submodules are empty directories. Symbolic
// links are kept as symbolic links, with the commit's targets, and created after every file and
// directory, so that extraction never writes through one; inside a sandbox a link out resolves
// to the sandbox's own (empty) view. Commits over Options.MaxFiles or Options.MaxBytes are
// refused. Files are made mode 0444 (0555 when executable), directories
// 0555: the tree is shared by every unit and no tool may change it. RemoveAll deletes one.
//
// # Reading
//
// A Snapshot handle reads through an os.Root on the tree. The rules:
//
//   - Paths are slash-separated and relative to the repository root ("" and "." are the root).
//     An absolute path, or one whose .. elements climb above the root (checked lexically:
//     "a/../b" is "b"), fails with ErrOutside.
//   - Symbolic links are followed when their target stays inside the snapshot, as os.Root does
//     (a link to a file in the tree reads that file); a link that is absolute or whose target
//     leaves the tree fails with ErrOutside, whichever method meets it; a loop fails with a
//     "too many levels of symbolic links" error (ELOOP), after at most eight links. Lstat,
//     Readlink and ReadDir show links as links.
//   - Walk and ReadDir never descend through a symbolic link to a directory.
//   - Limits (defaults in brackets) bound every output: ReadFile, Open and the fs.FS view refuse
//     files over MaxFileSize [1 MiB] with ErrTooLarge, and Read returns their first MaxFileSize
//     bytes, marked Truncated, reading no more than that; Stream opens a file of any size for
//     reading through (line counts and searches over big files); a handle returns at most
//     MaxTotalBytes [128 MiB] of content in all (ErrBudget); ReadDir and Walk stop after
//     MaxEntries [100,000] entries (ErrTooMany).
//   - IsBinary (a NUL byte in the first 8000 bytes, git's rule; invalid UTF-8 alone is not
//     binary) lets tools say "binary file, not shown"; Read sets Content.Binary.
//   - A file left out at extraction fails with ErrSkipped (and fs.ErrNotExist), saying why.
//
// FS returns an fs.FS with the same rules. Root gives the tree's path for programs that must
// run on a directory (scanners): read-only by intent and by mode, but a program that follows
// symbolic links there can leave the tree.
//
// Locate finds a case's repository under a `--repos DIR` directory.
package snapshot
