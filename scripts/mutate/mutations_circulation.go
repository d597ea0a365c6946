package main

// circulationMutations break what holds, blocks, reminders and sign-in promise.
var circulationMutations = []mutation{
	{
		name:    "a hold's expiry is known by its member alone: the same member's second hold on a book never expires",
		file:    "internal/holdshelf/saga.go",
		find:    `CommandID: "hold-expiry:" + x.MemberID + ":" + strconv.FormatInt(x.Until.Unix(), 10),`,
		replace: `CommandID: "hold-expiry:" + x.MemberID + ":" + strconv.FormatInt(0, 10),`,
		pkg:     "./internal/holdshelf/",
	},
	{
		name:    "BLOCK_AT one cent early: a member who owes exactly the limit is refused",
		file:    "internal/accounts/loans.go",
		find:    "if l.BlockAt > 0 && a.Balance > l.BlockAt {",
		replace: "if l.BlockAt > 0 && a.Balance >= l.BlockAt {",
		pkg:     "./internal/accounts/",
	},
	{
		name:    "EMAIL_ADDRESS_WAIT counted from a reminder's latest look: one that waits for an address is never given up",
		file:    "internal/notifications/reminder_fire.go",
		find:    "left := o.addressLeft(r.At)",
		replace: "left := o.addressLeft(t.At)",
		pkg:     "./internal/notifications/",
	},
	{
		name:    "an overdue notice that waits for an address has the next scheduled over its look, and is skipped",
		file:    "internal/notifications/reminder_fire.go",
		find:    "return false, processor.Schedule(ctx, t.Key, o.now().Add(o.nextAddressLook(left)), r)",
		replace: "return true, processor.Schedule(ctx, t.Key, o.now().Add(o.nextAddressLook(left)), r)",
		pkg:     "./internal/notifications/",
	},
	{
		name:    "a remembered token is believed after the key that verified it left the provider's key set",
		file:    "internal/auth/cache.go",
		find:    "if e.stale(now) || !held(e.keyID) {",
		replace: "if e.stale(now) {",
		pkg:     "./internal/auth/",
	},
	{
		name:    "a slot freed tells no waiter: an email to a busy domain waits until the domain is idle",
		file:    "internal/notifications/slots/slots.go",
		find:    "close(w[0])",
		replace: "_ = w[0]",
		pkg:     "./internal/notifications/slots/",
	},
}
