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
}
