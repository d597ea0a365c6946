package sip2

// responseSpecs are the messages the library system (the ACS) sends, as SIP 2.00 defines them.
// The checkin response also names the 3M extension fields that kiosks commonly read (CR, CS,
// CT, CV, CY, DA) among its optional fields.
func responseSpecs() []Spec {
	checkoutResponse := Spec{
		Fixed:    []FixedSpec{{OK, 1}, {"renewal ok", 1}, {"magnetic media", 1}, {"desensitize", 1}, {TransactionDate, 18}},
		Required: ids("AO", "AA", "AB", "AJ", "AH"),
		Optional: ids("BT", "CI", "BH", "BV", "CK", "CH", "BK", "AF", "AG"),
		Response: true,
	}
	renewResponse := checkoutResponse.clone()
	checkoutResponse.Code, checkoutResponse.Name = "12", "Checkout Response"
	renewResponse.Code, renewResponse.Name = "30", "Renew Response"
	return []Spec{
		{Code: "10", Name: "Checkin Response", Response: true,
			Fixed:    []FixedSpec{{OK, 1}, {"resensitize", 1}, {"magnetic media", 1}, {"alert", 1}, {TransactionDate, 18}},
			Required: ids("AO", "AB", "AQ"),
			Optional: ids("AJ", "CL", "AA", "CK", "CH", "CR", "CS", "CT", "CV", "CY", "DA", "AF", "AG")},
		checkoutResponse,
		{Code: "16", Name: "Hold Response", Response: true,
			Fixed:    []FixedSpec{{OK, 1}, {"available", 1}, {TransactionDate, 18}},
			Required: ids("AO", "AA"), Optional: ids("BW", "BR", "BS", "AB", "AJ", "AF", "AG")},
		{Code: "18", Name: "Item Information Response", Response: true,
			Fixed:    []FixedSpec{{"circulation status", 2}, {"security marker", 2}, {"fee type", 2}, {TransactionDate, 18}},
			Required: ids("AB", "AJ"),
			Optional: ids("CF", "AH", "CJ", "CM", "BG", "BH", "BV", "CK", "AQ", "AP", "CH", "AF", "AG")},
		{Code: "20", Name: "Item Status Update Response", Response: true,
			Fixed:    []FixedSpec{{"item properties ok", 1}, {TransactionDate, 18}},
			Required: ids("AB"), Optional: ids("AJ", "CH", "AF", "AG")},
		{Code: "24", Name: "Patron Status Response", Response: true,
			Fixed:    []FixedSpec{{PatronStatus, 14}, {Language, 3}, {TransactionDate, 18}},
			Required: ids("AO", "AA", "AE"), Optional: ids("BL", "CQ", "BH", "BV", "AF", "AG")},
		{Code: "26", Name: "Patron Enable Response", Response: true,
			Fixed:    []FixedSpec{{PatronStatus, 14}, {Language, 3}, {TransactionDate, 18}},
			Required: ids("AO", "AA", "AE"), Optional: ids("BL", "CQ", "AF", "AG")},
		renewResponse,
		{Code: "36", Name: "End Session Response", Response: true,
			Fixed:    []FixedSpec{{"end session", 1}, {TransactionDate, 18}},
			Required: ids("AO", "AA"), Optional: ids("AF", "AG")},
		{Code: "38", Name: "Fee Paid Response", Response: true,
			Fixed:    []FixedSpec{{"payment accepted", 1}, {TransactionDate, 18}},
			Required: ids("AO", "AA"), Optional: ids("BK", "AF", "AG")},
		patronInformationResponse(),
		{Code: "66", Name: "Renew All Response", Response: true,
			Fixed:    []FixedSpec{{OK, 1}, {"renewed count", 4}, {"unrenewed count", 4}, {TransactionDate, 18}},
			Required: ids("AO"), Optional: ids("BM", "BN", "AF", "AG")},
		{Code: "94", Name: "Login Response", Response: true,
			Fixed: []FixedSpec{{OK, 1}}},
		{Code: "96", Name: "Request SC Resend", Response: true},
		{Code: "98", Name: "ACS Status", Response: true,
			Fixed: []FixedSpec{{"on-line status", 1}, {"checkin ok", 1}, {"checkout ok", 1}, {"ACS renewal policy", 1},
				{"status update ok", 1}, {"off-line ok", 1}, {"timeout period", 3}, {"retries allowed", 3},
				{"date / time sync", 18}, {"protocol version", 4}},
			Required: ids("AO", "BX"), Optional: ids("AM", "AN", "AF", "AG")},
	}
}

// patronInformationResponse (64) is the longest: the patron's status, six counts of four
// digits, and the item lists the request's summary asked for (AS, AT, AU, AV, BU, CD).
func patronInformationResponse() Spec {
	return Spec{Code: "64", Name: "Patron Information Response", Response: true,
		Fixed: []FixedSpec{{PatronStatus, 14}, {Language, 3}, {TransactionDate, 18},
			{"hold items count", 4}, {"overdue items count", 4}, {"charged items count", 4},
			{"fine items count", 4}, {"recall items count", 4}, {"unavailable holds count", 4}},
		Required: ids("AO", "AA", "AE"),
		Optional: ids("BZ", "CA", "CB", "BL", "CQ", "BH", "BV", "CC",
			"AS", "AT", "AU", "AV", "BU", "CD", "BD", "BE", "BF", "AF", "AG")}
}
