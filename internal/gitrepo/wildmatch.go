package gitrepo

// This file ports git's wildmatch.c (the matcher behind gitignore patterns)
// byte for byte, because the exact corner cases (a "**" that is not a whole
// path component, "[" classes with "]" first, "[:class:]", an unterminated
// class) decide whether a path is ignored, and tests compare us with git.

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wmFlags mirror WM_CASEFOLD and WM_PATHNAME.
const (
	wmCaseFold = 1 << iota
	wmPathname
)

// wildmatch reports whether text matches the glob pattern under flags.
func wildmatch(pattern, text string, flags int) bool {
	return dowild(pattern, 0, text, 0, flags) == wmMatch
}

// at returns s[i], or 0 past the end, standing in for C's NUL terminator.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return isUpper(c) || isLower(c) }

// isSpace follows git's sane_ctype table, which leaves out \v and \f.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isPrint(c byte) bool { return c >= 0x20 && c <= 0x7e }
func isPunct(c byte) bool { return isPrint(c) && c != ' ' && !isAlpha(c) && !isDigit(c) }
func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}
func toUpper(c byte) byte {
	if isLower(c) {
		return c - 'a' + 'A'
	}
	return c
}

// isGlobSpecial matches git's is_glob_special: the bytes that stop the
// literal fast path after a star.
func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// dowild is wildmatch.c's dowild with p and t as indexes into pat and text.
func dowild(pat string, p int, text string, t int, flags int) int {
	for ; p < len(pat); p, t = p+1, t+1 {
		pCh := pat[p]
		tCh := at(text, t)
		if tCh == 0 && pCh != '*' {
			return wmAbortAll
		}
		if flags&wmCaseFold != 0 && isUpper(tCh) {
			tCh = toLower(tCh)
		}
		if flags&wmCaseFold != 0 && isUpper(pCh) {
			pCh = toLower(pCh)
		}
		switch pCh {
		case '\\':
			// Literal match with the following byte; a trailing
			// backslash compares with NUL and so never matches.
			p++
			pCh = at(pat, p)
			if tCh != pCh {
				return wmNoMatch
			}
			continue
		//lint:ignore ST1015 the cases keep the order of git's wildmatch.c, which this ports
		default:
			if tCh != pCh {
				return wmNoMatch
			}
			continue
		case '?':
			if flags&wmPathname != 0 && tCh == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prev := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if (prev < 0 || pat[prev] == '/') &&
					(at(pat, p) == 0 || at(pat, p) == '/' || (at(pat, p) == '\\' && at(pat, p+1) == '/')) {
					// "**/" may match no directory at all: try the
					// rest of the pattern right here first.
					if at(pat, p) == '/' && dowild(pat, p+1, text, t, flags) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			} else {
				matchSlash = flags&wmPathname == 0
			}
			if p >= len(pat) {
				// Trailing "**" matches everything; a trailing "*"
				// only if no slash remains.
				if !matchSlash {
					for i := t; i < len(text); i++ {
						if text[i] == '/' {
							return wmNoMatch
						}
					}
				}
				return wmMatch
			} else if !matchSlash && pat[p] == '/' {
				// One star followed by a slash matches up to the
				// next directory separator.
				slash := -1
				for i := t; i < len(text); i++ {
					if text[i] == '/' {
						slash = i
						break
					}
				}
				if slash < 0 {
					return wmNoMatch
				}
				t = slash
				// The slash itself is consumed by the loop.
				continue
			}
			for {
				if tCh == 0 {
					break
				}
				if !isGlobSpecial(pat[p]) {
					// Skip ahead to the next occurrence of the
					// literal that follows the star.
					want := pat[p]
					if flags&wmCaseFold != 0 && isUpper(want) {
						want = toLower(want)
					}
					for {
						tCh = at(text, t)
						if tCh == 0 || (!matchSlash && tCh == '/') {
							break
						}
						if flags&wmCaseFold != 0 && isUpper(tCh) {
							tCh = toLower(tCh)
						}
						if tCh == want {
							break
						}
						t++
					}
					if tCh != want {
						return wmNoMatch
					}
				}
				matched := dowild(pat, p, text, t, flags)
				if matched != wmNoMatch {
					if !matchSlash || matched != wmAbortToStarStar {
						return matched
					}
				} else if !matchSlash && tCh == '/' {
					return wmAbortToStarStar
				}
				t++
				tCh = at(text, t)
			}
			return wmAbortAll
		case '[':
			p++
			pCh = at(pat, p)
			if pCh == '^' {
				pCh = '!'
			}
			negated := pCh == '!'
			if negated {
				p++
				pCh = at(pat, p)
			}
			var prevCh byte
			matched := false
			for {
				if pCh == 0 {
					return wmAbortAll
				}
				if pCh == '\\' {
					p++
					pCh = at(pat, p)
					if pCh == 0 {
						return wmAbortAll
					}
					if tCh == pCh {
						matched = true
					}
				} else if pCh == '-' && prevCh != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']' {
					p++
					pCh = pat[p]
					if pCh == '\\' {
						p++
						pCh = at(pat, p)
						if pCh == 0 {
							return wmAbortAll
						}
					}
					if tCh <= pCh && tCh >= prevCh {
						matched = true
					} else if flags&wmCaseFold != 0 && isLower(tCh) {
						up := toUpper(tCh)
						if up <= pCh && up >= prevCh {
							matched = true
						}
					}
					pCh = 0 // so that prevCh becomes 0
				} else if pCh == '[' && at(pat, p+1) == ':' {
					p += 2
					s := p
					for ; at(pat, p) != 0 && at(pat, p) != ']'; p++ {
					}
					pCh = at(pat, p)
					if pCh == 0 {
						return wmAbortAll
					}
					i := p - s - 1
					if i < 0 || pat[p-1] != ':' {
						// No ":]": an ordinary '[' inside the set.
						p = s - 2
						pCh = '['
						if tCh == pCh {
							matched = true
						}
						prevCh = pCh
						p++
						pCh = at(pat, p)
						if pCh == ']' {
							break
						}
						continue
					}
					switch pat[s : s+i] {
					case "alnum":
						matched = matched || isAlpha(tCh) || isDigit(tCh)
					case "alpha":
						matched = matched || isAlpha(tCh)
					case "blank":
						matched = matched || tCh == ' ' || tCh == '\t'
					case "cntrl":
						matched = matched || tCh < 0x20 || tCh == 0x7f
					case "digit":
						matched = matched || isDigit(tCh)
					case "graph":
						matched = matched || (isPrint(tCh) && tCh != ' ')
					case "lower":
						matched = matched || isLower(tCh)
					case "print":
						matched = matched || isPrint(tCh)
					case "punct":
						matched = matched || isPunct(tCh)
					case "space":
						matched = matched || isSpace(tCh)
					case "upper":
						matched = matched || isUpper(tCh) || (flags&wmCaseFold != 0 && isLower(tCh))
					case "xdigit":
						matched = matched || isDigit(tCh) || (tCh >= 'a' && tCh <= 'f') || (tCh >= 'A' && tCh <= 'F')
					default:
						return wmAbortAll
					}
					pCh = 0
				} else if tCh == pCh {
					matched = true
				}
				prevCh = pCh
				p++
				pCh = at(pat, p)
				if pCh == ']' {
					break
				}
			}
			if matched == negated || (flags&wmPathname != 0 && tCh == '/') {
				return wmNoMatch
			}
			continue
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}
