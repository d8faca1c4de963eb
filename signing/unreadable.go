package signing

import "errors"

// IsUnreadablePDF tells whether an error of SignPDF or VerifyPDF says the PDF itself cannot be read
// (not a PDF, damaged, encrypted, or beyond the reader's limits): the file's fault, not the seal's.
func IsUnreadablePDF(err error) bool { return errors.Is(err, errPDF) }
