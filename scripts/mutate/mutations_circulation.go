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
}
