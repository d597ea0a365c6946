package main

// circulationMutations break what holds, blocks, reminders and sign-in promise.
var circulationMutations = []mutation{}
