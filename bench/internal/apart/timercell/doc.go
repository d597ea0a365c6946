// Package timercell measures due timers firing beside payments, on a service process, a
// database and an SMTP sink of their own: payments alone, timers alone, and payments while a
// day's reminders fire (Timers).
package timercell
