package migrations

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// MinServerVersion is the oldest PostgreSQL the schema and the service run on, as
// server_version_num: 14, whose idle_session_timeout every lease session sets (an unknown
// startup parameter is fatal, so on 13 no lease could ever be taken).
const MinServerVersion = 140000

// CheckServer asks the server its version and fails when it is older than MinServerVersion,
// naming the version found and the one needed. A server that can't be reached fails with an
// error that says so, in the driver's words without the connection string.
func CheckServer(ctx context.Context, pool *pgxpool.Pool) error {
	var num, version string
	err := pool.QueryRow(ctx, `SELECT current_setting('server_version_num'), current_setting('server_version')`).Scan(&num, &version)
	if err != nil {
		return fmt.Errorf("cannot reach the database (DATABASE_URL): %s", driverCause(err))
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return fmt.Errorf("the database says its version is %q, which is not a PostgreSQL version", num)
	}
	return checkVersion(n, version)
}

func checkVersion(num int, version string) error {
	if num < MinServerVersion {
		return fmt.Errorf("the database is PostgreSQL %s; the service needs PostgreSQL %d or later", version, MinServerVersion/10000)
	}
	return nil
}

// driverCause is the driver's error on one line, without the part that quotes the connection
// settings ("failed to connect to `user=… database=…`:"): pgx lists each address it tried on
// a line of its own, and the first says enough.
func driverCause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "`:"); i >= 0 {
		msg = msg[i+2:]
	}
	for line := range strings.Lines(msg) {
		if line = strings.TrimSpace(line); line != "" {
			msg = line
			break
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time: " + msg
	}
	return msg
}
