// Package snapshot materialises a repository at a commit, once, without .git, and gives
// read access to it that cannot leave it.
//
// # The cache
//
// A Cache keeps snapshots under CACHE/snapshots:
//
//	CACHE/snapshots/KEY/tree/          the commit's files (git archive, extracted by archive/tar)
//	CACHE/snapshots/KEY/snapshot.json  Info: repository, commit, tree id, counts, what was left out
//	CACHE/snapshots/KEY.lock           flock taken while one process extracts KEY
//	CACHE/snapshots/.tmp-KEY-*         an extraction under way (or left by a process that died:
//	                                   removed by the next one to take the lock)
//
// KEY (see Key) hashes the repository's git directory, the full commit id and the extraction
// file size limit. The commit id rather than the tree id, and the repository too, because git
// archive applies the export-subst and export-ignore attributes, which depend on the commit and
// on the repository's info/attributes; system and user attribute files are ignored.
//
// A snapshot is extracted into a temporary directory beside its final place and published by
// renaming it, so a snapshot directory is complete or absent. Gets of one snapshot in a process
// share one extraction; across processes the lock file makes the others wait and then use it
// (where there is no flock, both extract and the rename keeps the first). Extraction streams
// the archive and refuses entries with absolute names or .. elements; symbolic links are kept
// as symbolic links, with the commit's targets, and created after every file and directory, so
// that extraction never writes through one; files over Options.MaxFileSize (64 MiB) and other
// entry types are left out and listed in Info.Skipped; commits over Options.MaxFiles or
// Options.MaxBytes are refused. Files are made mode 0444 (0555 when executable), directories
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
//     bytes, marked Truncated, reading no more than that; a handle returns at most
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
