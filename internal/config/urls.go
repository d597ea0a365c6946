package config

// parseURLs parses SMTPURL, unless it is parsed already. DATABASE_URL is parsed where the pool
// is made (internal/app), by the driver that reads it.
func (c Config) parseURLs() (Config, error) {
	if c.SMTPURL != "" && c.smtp == nil {
		smtp, err := ParseSMTPURL(c.SMTPURL)
		if err != nil {
			return Config{}, err
		}
		c.smtp = &smtp
	}
	return c, nil
}

// SMTP is SMTPURL as Complete parsed it. It is the zero SMTPServer without SMTPURL, or before
// Complete.
func (c Config) SMTP() SMTPServer {
	if c.smtp == nil {
		return SMTPServer{}
	}
	return *c.smtp
}
