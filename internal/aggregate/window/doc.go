// Package window is the memory of a stream's recent commands, by which a repeated command is
// recognised: for each of the last few commands that carried a key (a command id), its key, the
// fingerprint of its payload, its name, who ran it, and the versions of the events it wrote, as
// the metadata of those events records them. A Window is built from the events it follows and
// never changed once built, so one kept in memory can be shared by concurrent commands; a
// snapshot keeps it in the encoding of Encode. The events themselves stay in the log.
//
// Fingerprints are keyed hashes of a payload's JSON encoding (FingerprintPayload), 16 bytes,
// written into the metadata as "sha256:" and hex. Commands recorded before fingerprints were
// keyed carry the plain hash, which FingerprintPayload returns too, so a retry across that
// change is still recognised.
package window
