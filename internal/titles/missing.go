package titles

// CopyMissing records that a copy is on no shelf: its loan ended with the copy lost, or claimed
// returned by its borrower (Status, as the copy's own stream says it). It is lent to nobody and
// fills no hold until it comes back (CopyShelved, or HoldTrapped for the next in line).
type CopyMissing struct {
	BookID string `json:"bookId"`
	Status string `json:"status"`
}

// EventType names the event in the log; never rename it.
func (CopyMissing) EventType() string { return "CopyMissing" }

// Missing is the state of a copy on no shelf, as its title knows it.
const Missing = "missing"
