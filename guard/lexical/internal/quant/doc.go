// Package quant extracts quantities from English text so that a lexical judge
// can compare the numbers in an answer with those in its contexts: it tells
// "20 hours" from "20 days", and matches "thirty" with 30, "$5 million" with
// "5,000,000 dollars", "June 17, 1935" with "1935" and "3 pm" with "15:00".
//
// Extract makes a single left-to-right pass over the bytes with bounded
// look-ahead, uses no regular expressions and allocates nothing beyond the
// growth of the destination slice: pass dst[:0] of a reused slice and a
// typical 120-word passage is scanned in a few microseconds with zero
// allocations. It never panics, whatever the input, including invalid UTF-8.
//
// # What is recognised
//
//   - Numbers: "1,234,567", "3.5", "-4", "−4", ".5", magnitude words and
//     suffixes ("5 million", "2.5k", "$3bn", "5 lakh"), spelled numbers
//     ("thirty-five", "twenty five", "one hundred and five", "two thousand",
//     "a dozen", "a hundred"), halves ("one and a half", "2 and a half
//     hours", "an hour and a half", "2½ years"), fractions of a magnitude
//     or a unit ("half a million people", "a quarter of a million", "half a
//     dozen", "half an hour", "a half-hour", "a quarter mile", "three
//     quarters of an hour").
//   - Ordinals: "first" … "twentieth", "twenty-first", "hundredth", "1st",
//     "22nd", "100th".
//   - Percent: "20%", "20 %", "20 percent", "20 per cent", "20 pct"; "5
//     percentage points" is Percent with Unit "percentage point".
//     Proportions in words are Percent with Unit "fraction" and the value
//     in percent: "a fifth" (20), "one fifth", "two thirds", "three
//     quarters", "one-third", "a quarter of", "half of the", "half the",
//     "about half.", "one in five", "1 in 10,000", "one out of every four".
//   - Money: prefix symbols and codes ($ € £ ¥ ₹, US$, A$, C$, HK$, NZ$, S$,
//     USD, EUR, GBP, Rs.), and currency words after the number (dollars,
//     euros, pounds, yen, rupees, yuan, francs, cents, "US dollars",
//     "pounds sterling"). Unit is a lower-case ISO code ("usd", "eur", ...).
//   - Measures: a number followed by a unit, spaced, glued ("10km") or
//     hyphenated ("1.5-hour"). Units are normalised to a canonical singular
//     from a fixed table: time (second, ms, minute, hour, day, week, month,
//     year, decade, century), length (km, m, cm, mm, mile, foot, inch, yard),
//     area (km2, m2, mi2, ft2, acre, hectare), mass (kg, g, mg, lb, oz, ton),
//     volume (liter, ml, gallon), speed (mph, kmh, m/s), temperature
//     (celsius, fahrenheit, kelvin, degree), data (byte, kb, mb, gb, tb),
//     electricity, energy and frequency (watt, kw, mw, gw, wh, kwh, volt,
//     kv, amp, mah, hz, khz, mhz, ghz, calorie, kcal), and a few count nouns (people, employee, student,
//     member, child, vote, episode, season, game, goal, point, page, copy,
//     book, film, song, album, species, country, state, city, language,
//     floor, room, seat, bed, word, patient, case, death, soldier, medal,
//     award, store, house, car, user). A number followed by any other noun
//     is a bare Number. "a"/"an" and a period word ("a month", "an hour")
//     is a Measure of 1 when it states a duration (see below).
//   - Dates: "June 17, 1935", "June 17th, 1935", "17 June 1935", "the 17th
//     of June", "June 1935", "June of 1935", "June 17" (Year 0),
//     "1935-06-17", "1935/6/17", "06/17/1935", "17.06.1935".
//   - Years: a bare integer of four digits in 1000–2100 ("the 2010 census"),
//     three or four digits right after in/since/until/by/from/during/
//     before/after and not followed by a word ("in 800."), "500 BC",
//     "1066 AD", decades ("1990s", "1990's", "mid-1990s").
//   - Times: "3 pm", "3pm", "3 p.m.", "3:30 pm", "3.30 pm", "15:00",
//     "10:45:30", "3 o'clock", "noon", "midnight", "12 noon". Value is
//     minutes after midnight.
//   - Approximation: "about", "around", "approximately", "approx.",
//     "roughly", "nearly", "almost", "over", "under", "some", "circa", "c.",
//     "ca.", "estimated", "more/less/fewer/greater than", "at least/most",
//     "up to", "upwards of", "~" and "≈" directly before a quantity set
//     Hedged; so does a trailing "+" ("20+ years"). The cue is not part of
//     the span. (The method Approx is something else: see Comparing.)
//   - Ranges: "1844–1846", "10-20 hours", "10 to 20 million people", "$10–20
//     million", "3–5 pm", "2010–11" give two quantities; a bare first member
//     takes the unit, currency, magnitude or am/pm of the second, and a money
//     first member lends its currency to a bare second one.
//
// # Rules chosen for ambiguous cases
//
//   - "one": a lone "one" is emitted only when a unit, currency or percent
//     follows ("one day", "one-day", "one dollar") or as part of a larger
//     number ("one hundred", "twenty-one"); so "no one", "one of the",
//     "the one" give nothing. "someone"/"anyone" are other words. "a"/"an"
//     count only before hundred/thousand/million/.../dozen.
//   - "second" is an ordinal except after "a", "an", "per", "every", "each"
//     or "split" ("wait a second"), and "at first" is not an ordinal.
//   - "may", "mar" and "march" are months only when capitalised; a month
//     name alone gives nothing, only with a day or a year.
//   - Numeric dates with two-digit first parts are read month first (US
//     order: 03/04/1935 is March 4), unless the first part exceeds 12
//     (17/06/1935 is June 17). Dotted dates (17.06.1935) are day first.
//     Two-digit years are not dates.
//   - "pounds"/"pound" after a number is money (gbp) unless a weighing word
//     (weigh*, heav*) occurs earlier in the same sentence within 80 bytes,
//     in which case it is a weight (lb). "lb"/"lbs" are always weight, "£"
//     always money.
//   - "m" glued to digits is a million after a currency symbol or code
//     ("$5m", "£20m") or before a count noun or currency word ("5m
//     people"); otherwise it is metres ("100m sprint"). "M" is a million,
//     "B" a billion only in money or count context, "k"/"K" a thousand,
//     "bn", "mn", "mln", "tn" always magnitudes.
//   - A four-digit integer in 1000–2100 is a Year unless a unit or plural
//     count noun follows ("1500 people" is a Measure); a singular count noun
//     after it is read as attributive ("the 2019 season" is Year 2019). With
//     thousands separators ("1,500") it is a Number. Compatible treats a
//     Year and a Number of equal value as compatible because of this.
//   - A decade "1990s" is Year 1990 with Hedged set; Compatible matches it
//     with any year 1990–1999. Two-digit decades ("the 90s") give nothing.
//   - Times without am/pm are read on the 24-hour clock ("3:30" is 210);
//     "3 o'clock" is 180.
//   - Feet and inches (5'11", 5′11″, "5 ft 11 in", "6 feet 2 inches") are
//     one Measure in feet (5+11/12).
//   - Digits glued to letters ("MP3", "3D", "4G", "B2B") and upper-case
//     identifiers with a hyphen ("COVID-19", "F-16") give nothing; lower-case
//     prefixes are kept ("mid-1990s"). Version numbers ("1.2.3") and
//     scientific notation give nothing; "1/2", "24/7" and "3:1" give their
//     parts as separate numbers ("3:16" reads as a time).
//   - Date values: Value is 0 for Date; Year, Month and Day hold the parts.
//     For Year, Value equals Year (negative for BC).
//   - One-letter units: "W" and "V" (glued or spaced: "65W", "12 V"), "A",
//     "C" and "F" only spaced ("5 A", "20 C"; "Type 35C", "13C", "Form 10A"
//     are identifiers). None of them before an abbreviation dot followed by
//     a capital or a letter ("166 C.E.", "229 F. Supp.", "525 W. Ottawa
//     St.") or before a capitalised word ("525 W Main St"); "A" not before
//     any word (it is also the article: "8 A stoichiometry").
//   - "a"/"an" and a period word (minute … century, not "second") is a
//     duration after for/in/within/about/over/than/after/took/lasted/spent
//     and similar words, before "-long", "'s" or "and a half", or standing
//     alone ("A month."); not in rates ("twice a year", "$5 a month",
//     "three meals a day") or time references ("a year ago", "A day
//     later").
//   - "half" alone is a proportion only before "of", a determiner ("half
//     the", "half its") or the end of a clause, and not as a part ("the
//     second half of", "the other half", "the lower half", "his half", "cut
//     in half"). "a third", "a fifth", ... are proportions only before
//     "of" or at the end of a clause; otherwise ordinals ("a third album",
//     "a third-year student").
//   - "N in M" is a proportion when M exceeds N, is not a four-digit year
//     and is not followed by a unit ("1 in 5 days"); unless N is 1, M is at
//     most 10 or a power of ten ("three in five", not "scored 31 in 35").
//     "out of" only after 1 ("nine out of ten" stays two numbers).
//
// # Comparing
//
// Compatible, SameSlot and Approx compare two quantities (see their docs).
// Measures and Percents in two units of one dimension are compared in a
// base unit: length, area, mass, volume, speed, time, temperature, data,
// power, energy, frequency, voltage, current, and proportion (percent and
// fraction). A conversion may be off by rounding: within 2% it is
// Compatible ("5 miles" and "8 km"; for proportions also at most 0.5
// percentage point: "a third" matches "33%"), between that and 10% it is
// Approx (neither supported nor contradicted: "3 miles" and "5 km"), beyond
// that it is the same slot with another value (a mismatch). Calendar
// periods (month, year, decade, century) and fixed ones (ms … week) are
// exact within each group ("a year" = "12 months", "a week" = "7 days")
// and only ever Approx across them ("a month" and "30 days" or "4 weeks",
// "a year" and "365 days"), unless both are hedged. Quantities in the same
// unit are never Approx: "20 hours" and "21 hours" are a mismatch, and so
// are "20 hours" and "20 days".
package quant
