// Package apitest is the harness of the HTTP tests: it starts the real service (app.New and
// Run, the production wiring) on a free local port, on each store (in memory, and on a fresh
// PostgreSQL database from pgtest), and talks to it over HTTP. It promises that every answer a
// test receives through API is one the OpenAPI document allows (contract.go): a test that gets
// an undocumented status, header or body fails, whatever it asserts itself.
//
// The feature packages' tests (books, accounts, notifications) and the wiring's (app) use it;
// nothing in the service imports it. A package whose tests use the postgres store calls
// pgtest.Main from its TestMain.
package apitest
