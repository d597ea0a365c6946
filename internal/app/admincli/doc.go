// Package admincli is the operator's commands on the command line, each on DATABASE_URL and
// none changing the schema: `library keys rotate` (RotateKeys) rewraps every member's data key
// with the first key of PII_KEY, `library members audit` (AuditMembers) lists the member ids
// that look like email addresses, and `library sip terminals` (SIPTerminals) adds, lists and
// removes the kiosks that may log in over SIP2, a new terminal's password shown once.
package admincli
