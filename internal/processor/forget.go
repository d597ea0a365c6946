package processor

// Forgetting a member rewrites the reasons of the events that wait in any processor (parked or
// deferred) and name them, by memberId or by being of their account's stream: a relay's reply
// may quote their address. The events themselves stay where they are. A deferred one is tried
// again and finds the member erased (the outbox then parks it, unsent); a parked one stays
// listed, so an operator still sees what was never done, and why.

// ErasedReason is the reason a waiting event of an erased member shows.
const ErasedReason = "erased: the member asked to be forgotten"
