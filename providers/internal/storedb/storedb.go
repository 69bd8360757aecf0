// Package storedb opens an agent's SQLite database the way every store
// reader must: read-only, never holding a lock between reads (the agent's
// writers must never wait on ag), through the driver the reading program
// links (ag-tail: modernc.org/sqlite, registered as "sqlite").
package storedb

import (
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"time"
)

// Driver is the database/sql driver name the stores are read through.
const Driver = "sqlite"

// Open opens the database at path read-only, waiting up to 2 s for a
// writer's lock; nil, nil when it does not exist (yet).
func Open(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"}
	db, err := sql.Open(Driver, u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(time.Second) // let go of the file between reads
	return db, nil
}
