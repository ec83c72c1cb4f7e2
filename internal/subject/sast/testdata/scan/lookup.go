package lookup

import "database/sql"

// Sessions lists the sessions of a user named in the request, building the query text from it.
func Sessions(db *sql.DB, name string) {
	rows, err := db.Query("SELECT id FROM sessions WHERE user = '" + name + "'")
	if err == nil {
		rows.Close()
	}
}
