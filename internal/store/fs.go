package store

import (
	"embed"
	"io/fs"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// migrationsFS returns the goose migrations of a dialect.
func migrationsFS(d dialect) fs.FS {
	sub, err := fs.Sub(migrations, "migrations/"+d.name())
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}
