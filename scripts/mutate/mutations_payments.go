package main

// paymentMutations break the payment path: the provider's word, refunds made once, checkouts
// bounded.
var paymentMutations = []mutation{}
