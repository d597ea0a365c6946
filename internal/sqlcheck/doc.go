// Package sqlcheck holds no code. Its test reads the module's source and fails when a statement
// the service sends to PostgreSQL is anything but a constant: every value travels as a query
// parameter, so nothing a client sends can become part of an SQL string.
package sqlcheck
