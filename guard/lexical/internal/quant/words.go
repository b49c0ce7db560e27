package quant

import "fmt"

// Canonical unit strings. Every Unit value produced by Extract is one of
// these constants (or ""), so callers may compare units with == and the
// extractor never allocates a unit string.
const (
	uSecond  = "second"
	uMs      = "ms"
	uMinute  = "minute"
	uHour    = "hour"
	uDay     = "day"
	uWeek    = "week"
	uMonth   = "month"
	uYear    = "year"
	uDecade  = "decade"
	uCentury = "century"

	uKm   = "km"
	uM    = "m"
	uCm   = "cm"
	uMm   = "mm"
	uMile = "mile"
	uFoot = "foot"
	uInch = "inch"
	uYard = "yard"

	uKm2     = "km2"
	uM2      = "m2"
	uMi2     = "mi2"
	uFt2     = "ft2"
	uAcre    = "acre"
	uHectare = "hectare"

	uKg  = "kg"
	uG   = "g"
	uMg  = "mg"
	uLb  = "lb"
	uOz  = "oz"
	uTon = "ton"

	uLiter  = "liter"
	uMl     = "ml"
	uGallon = "gallon"

	uMph = "mph"
	uKmh = "kmh"
	uMps = "m/s"

	uCelsius    = "celsius"
	uFahrenheit = "fahrenheit"
	uKelvin     = "kelvin"
	uDegree     = "degree"

	uByte = "byte"
	uKB   = "kb"
	uMB   = "mb"
	uGB   = "gb"
	uTB   = "tb"

	uWatt    = "watt"
	uKW      = "kw"
	uMW      = "mw"
	uGW      = "gw"
	uKWh     = "kwh"
	uVolt    = "volt"
	uKV      = "kv"
	uAmp     = "amp"
	uMAh     = "mah"
	uWh      = "wh"
	uHz      = "hz"
	uKHz     = "khz"
	uMHz     = "mhz"
	uGHz     = "ghz"
	uCalorie = "calorie"
	uKcal    = "kcal"

	uPeople   = "people"
	uEmployee = "employee"
	uStudent  = "student"
	uMember   = "member"
	uChild    = "child"
	uVote     = "vote"
	uEpisode  = "episode"
	uSeason   = "season"
	uGame     = "game"
	uGoal     = "goal"
	uPoint    = "point"
	uPage     = "page"
	uCopy     = "copy"
	uBook     = "book"
	uFilm     = "film"
	uSong     = "song"
	uAlbum    = "album"
	uSpecies  = "species"
	uCountry  = "country"
	uState    = "state"
	uCity     = "city"
	uLanguage = "language"
	uFloor    = "floor"
	uRoom     = "room"
	uSeat     = "seat"
	uBed      = "bed"
	uWord     = "word"
	uPatient  = "patient"
	uCase     = "case"
	uDeath    = "death"
	uSoldier  = "soldier"
	uMedal    = "medal"
	uAward    = "award"
	uStore    = "store"
	uHouse    = "house"
	uCar      = "car"
	uUser     = "user"

	uUSD = "usd"
	uEUR = "eur"
	uGBP = "gbp"
	uJPY = "jpy"
	uINR = "inr"
	uCNY = "cny"
	uCHF = "chf"
	uAUD = "aud"
	uCAD = "cad"
	uNZD = "nzd"
	uHKD = "hkd"
	uSGD = "sgd"

	uPercent  = "percent"
	uPctPoint = "percentage point"
	// uFraction is the Unit of a Percent read from a proportion in words
	// ("a fifth", "two thirds", "half of", "one in five"); its Value is in
	// percent like uPercent's.
	uFraction = "fraction"
)

// wclass classifies a word met in running text (not after a number).
type wclass uint8

const (
	wNone       wclass = iota
	wNum               // cardinal zero..ninety; val = value
	wOrd               // ordinal word; val = value
	wHundred           // "hundred"
	wScale             // thousand/million/...; val = decimal exponent
	wDozen             // "dozen"
	wA                 // "a", "an"
	wAnd               // "and"
	wMonth             // month name; val = 1..12
	wNoon              // noon, midday
	wMidnight          // midnight
	wApprox            // about, around, nearly, ...
	wApproxLead        // more/less/fewer/greater/at/up: approximate with a second word
	wYearPrep          // in, since, until, ...: "in 1990"
	wPer               // per, every, each: "a second" / "per second" is a unit
	wHalf              // "half"
)

type wordInfo struct {
	cls wclass
	val int32
}

var generalWords = map[string]wordInfo{
	"zero": {wNum, 0}, "one": {wNum, 1}, "two": {wNum, 2}, "three": {wNum, 3},
	"four": {wNum, 4}, "five": {wNum, 5}, "six": {wNum, 6}, "seven": {wNum, 7},
	"eight": {wNum, 8}, "nine": {wNum, 9}, "ten": {wNum, 10}, "eleven": {wNum, 11},
	"twelve": {wNum, 12}, "thirteen": {wNum, 13}, "fourteen": {wNum, 14},
	"fifteen": {wNum, 15}, "sixteen": {wNum, 16}, "seventeen": {wNum, 17},
	"eighteen": {wNum, 18}, "nineteen": {wNum, 19}, "twenty": {wNum, 20},
	"thirty": {wNum, 30}, "forty": {wNum, 40}, "fifty": {wNum, 50},
	"sixty": {wNum, 60}, "seventy": {wNum, 70}, "eighty": {wNum, 80},
	"ninety": {wNum, 90},

	"first": {wOrd, 1}, "second": {wOrd, 2}, "third": {wOrd, 3}, "fourth": {wOrd, 4},
	"fifth": {wOrd, 5}, "sixth": {wOrd, 6}, "seventh": {wOrd, 7}, "eighth": {wOrd, 8},
	"ninth": {wOrd, 9}, "tenth": {wOrd, 10}, "eleventh": {wOrd, 11},
	"twelfth": {wOrd, 12}, "thirteenth": {wOrd, 13}, "fourteenth": {wOrd, 14},
	"fifteenth": {wOrd, 15}, "sixteenth": {wOrd, 16}, "seventeenth": {wOrd, 17},
	"eighteenth": {wOrd, 18}, "nineteenth": {wOrd, 19}, "twentieth": {wOrd, 20},
	"thirtieth": {wOrd, 30}, "fortieth": {wOrd, 40}, "fiftieth": {wOrd, 50},
	"sixtieth": {wOrd, 60}, "seventieth": {wOrd, 70}, "eightieth": {wOrd, 80},
	"ninetieth": {wOrd, 90}, "hundredth": {wOrd, 100}, "thousandth": {wOrd, 1000},
	"millionth": {wOrd, 1000000},

	"hundred": {wHundred, 2}, "thousand": {wScale, 3}, "million": {wScale, 6},
	"billion": {wScale, 9}, "trillion": {wScale, 12}, "lakh": {wScale, 5},
	"crore": {wScale, 7}, "dozen": {wDozen, 12},

	"a": {wA, 1}, "an": {wA, 1}, "and": {wAnd, 0},

	"january": {wMonth, 1}, "jan": {wMonth, 1}, "february": {wMonth, 2}, "feb": {wMonth, 2},
	"march": {wMonth, 3}, "mar": {wMonth, 3}, "april": {wMonth, 4}, "apr": {wMonth, 4},
	"may": {wMonth, 5}, "june": {wMonth, 6}, "jun": {wMonth, 6}, "july": {wMonth, 7},
	"jul": {wMonth, 7}, "august": {wMonth, 8}, "aug": {wMonth, 8},
	"september": {wMonth, 9}, "sep": {wMonth, 9}, "sept": {wMonth, 9},
	"october": {wMonth, 10}, "oct": {wMonth, 10}, "november": {wMonth, 11},
	"nov": {wMonth, 11}, "december": {wMonth, 12}, "dec": {wMonth, 12},

	"noon": {wNoon, 0}, "midday": {wNoon, 0}, "midnight": {wMidnight, 0},

	"about": {wApprox, 0}, "around": {wApprox, 0}, "approximately": {wApprox, 0},
	"approx": {wApprox, 0}, "roughly": {wApprox, 0}, "nearly": {wApprox, 0},
	"almost": {wApprox, 0}, "over": {wApprox, 0}, "under": {wApprox, 0},
	"circa": {wApprox, 0}, "ca": {wApprox, 1}, "c": {wApprox, 1}, "some": {wApprox, 0},
	"estimated": {wApprox, 0},

	"more": {wApproxLead, 0}, "less": {wApproxLead, 0}, "fewer": {wApproxLead, 0},
	"greater": {wApproxLead, 0}, "at": {wApproxLead, 0}, "up": {wApproxLead, 0},
	"upwards": {wApproxLead, 0},

	"in": {wYearPrep, 0}, "since": {wYearPrep, 0}, "until": {wYearPrep, 0},
	"till": {wYearPrep, 0}, "by": {wYearPrep, 0}, "from": {wYearPrep, 0},
	"during": {wYearPrep, 0}, "before": {wYearPrep, 0}, "after": {wYearPrep, 0},

	"per": {wPer, 0}, "every": {wPer, 0}, "each": {wPer, 0}, "split": {wPer, 0},

	"half": {wHalf, 2},
}

// sclass classifies a word that follows a number.
type sclass uint8

const (
	sNone         sclass = iota
	sUnit                // measurement unit
	sCount               // plural count noun ("people")
	sCountOne            // singular count noun ("season")
	sCurrency            // currency word or code
	sCent                // cent(s): 1/100 usd
	sPound               // pound(s): gbp or lb depending on context
	sSterling            // "sterling"
	sPercent             // percent, pct
	sPer                 // "per" (per cent, per hour)
	sPercentage          // "percentage" (percentage point)
	sScale               // magnitude word; exp = decimal exponent
	sHundred             // "hundred" after digits
	sDozen               // "dozen" after digits
	sMetreMillion        // "m": metre, or million in money / count context
	sMega                // "M": million
	sBillionCtx          // "B": billion in money / count context
	sDegree              // degree(s)
	sSquare              // square, sq
	sUS                  // "US" (US dollars)
	sNoon                // noon
	sMidnight            // midnight
	sEraBC               // BC, BCE
	sEraAD               // AD, CE
)

type sfxInfo struct {
	cls  sclass
	exp  int8
	unit string
}

var suffixWords = map[string]sfxInfo{
	"sec": {sUnit, 0, uSecond}, "secs": {sUnit, 0, uSecond}, "second": {sUnit, 0, uSecond},
	"seconds": {sUnit, 0, uSecond}, "ms": {sUnit, 0, uMs}, "millisecond": {sUnit, 0, uMs},
	"milliseconds": {sUnit, 0, uMs}, "min": {sUnit, 0, uMinute}, "mins": {sUnit, 0, uMinute},
	"minute": {sUnit, 0, uMinute}, "minutes": {sUnit, 0, uMinute}, "hr": {sUnit, 0, uHour},
	"hrs": {sUnit, 0, uHour}, "hour": {sUnit, 0, uHour}, "hours": {sUnit, 0, uHour},
	"day": {sUnit, 0, uDay}, "days": {sUnit, 0, uDay}, "wk": {sUnit, 0, uWeek},
	"wks": {sUnit, 0, uWeek}, "week": {sUnit, 0, uWeek}, "weeks": {sUnit, 0, uWeek},
	"mo": {sUnit, 0, uMonth}, "mos": {sUnit, 0, uMonth}, "month": {sUnit, 0, uMonth},
	"months": {sUnit, 0, uMonth}, "yr": {sUnit, 0, uYear}, "yrs": {sUnit, 0, uYear},
	"year": {sUnit, 0, uYear}, "years": {sUnit, 0, uYear}, "decade": {sUnit, 0, uDecade},
	"decades": {sUnit, 0, uDecade}, "century": {sUnit, 0, uCentury},
	"centuries": {sUnit, 0, uCentury},

	"km": {sUnit, 0, uKm}, "kms": {sUnit, 0, uKm}, "kilometre": {sUnit, 0, uKm},
	"kilometres": {sUnit, 0, uKm}, "kilometer": {sUnit, 0, uKm}, "kilometers": {sUnit, 0, uKm},
	"metre": {sUnit, 0, uM}, "metres": {sUnit, 0, uM}, "meter": {sUnit, 0, uM},
	"meters": {sUnit, 0, uM}, "cm": {sUnit, 0, uCm}, "centimetre": {sUnit, 0, uCm},
	"centimetres": {sUnit, 0, uCm}, "centimeter": {sUnit, 0, uCm},
	"centimeters": {sUnit, 0, uCm}, "mm": {sUnit, 0, uMm}, "millimetre": {sUnit, 0, uMm},
	"millimetres": {sUnit, 0, uMm}, "millimeter": {sUnit, 0, uMm},
	"millimeters": {sUnit, 0, uMm}, "mi": {sUnit, 0, uMile}, "mile": {sUnit, 0, uMile},
	"miles": {sUnit, 0, uMile}, "ft": {sUnit, 0, uFoot}, "foot": {sUnit, 0, uFoot},
	"feet": {sUnit, 0, uFoot}, "inch": {sUnit, 0, uInch}, "inches": {sUnit, 0, uInch},
	"yd": {sUnit, 0, uYard}, "yds": {sUnit, 0, uYard}, "yard": {sUnit, 0, uYard},
	"yards": {sUnit, 0, uYard},

	"acre": {sUnit, 0, uAcre}, "acres": {sUnit, 0, uAcre}, "ha": {sUnit, 0, uHectare},
	"hectare": {sUnit, 0, uHectare}, "hectares": {sUnit, 0, uHectare},

	"kg": {sUnit, 0, uKg}, "kgs": {sUnit, 0, uKg}, "kilogram": {sUnit, 0, uKg},
	"kilograms": {sUnit, 0, uKg}, "kilogramme": {sUnit, 0, uKg},
	"kilogrammes": {sUnit, 0, uKg}, "kilo": {sUnit, 0, uKg}, "kilos": {sUnit, 0, uKg},
	"gram": {sUnit, 0, uG}, "grams": {sUnit, 0, uG}, "gramme": {sUnit, 0, uG},
	"grammes": {sUnit, 0, uG}, "mg": {sUnit, 0, uMg}, "milligram": {sUnit, 0, uMg},
	"milligrams": {sUnit, 0, uMg}, "lb": {sUnit, 0, uLb}, "lbs": {sUnit, 0, uLb},
	"oz": {sUnit, 0, uOz}, "ounce": {sUnit, 0, uOz}, "ounces": {sUnit, 0, uOz},
	"ton": {sUnit, 0, uTon}, "tons": {sUnit, 0, uTon}, "tonne": {sUnit, 0, uTon},
	"tonnes": {sUnit, 0, uTon},

	"litre": {sUnit, 0, uLiter}, "litres": {sUnit, 0, uLiter}, "liter": {sUnit, 0, uLiter},
	"liters": {sUnit, 0, uLiter}, "ml": {sUnit, 0, uMl}, "millilitre": {sUnit, 0, uMl},
	"millilitres": {sUnit, 0, uMl}, "milliliter": {sUnit, 0, uMl},
	"milliliters": {sUnit, 0, uMl}, "gal": {sUnit, 0, uGallon},
	"gallon": {sUnit, 0, uGallon}, "gallons": {sUnit, 0, uGallon},

	"mph": {sUnit, 0, uMph}, "kph": {sUnit, 0, uKmh}, "kmh": {sUnit, 0, uKmh},
	"kmph": {sUnit, 0, uKmh},

	"celsius": {sUnit, 0, uCelsius}, "centigrade": {sUnit, 0, uCelsius},
	"fahrenheit": {sUnit, 0, uFahrenheit}, "kelvin": {sUnit, 0, uKelvin},
	"kelvins": {sUnit, 0, uKelvin}, "degree": {sDegree, 0, uDegree},
	"degrees": {sDegree, 0, uDegree}, "deg": {sDegree, 0, uDegree},

	"byte": {sUnit, 0, uByte}, "bytes": {sUnit, 0, uByte}, "kb": {sUnit, 0, uKB},
	"kilobytes": {sUnit, 0, uKB}, "kilobyte": {sUnit, 0, uKB}, "mb": {sUnit, 0, uMB},
	"megabyte": {sUnit, 0, uMB}, "megabytes": {sUnit, 0, uMB}, "gb": {sUnit, 0, uGB},
	"gigabyte": {sUnit, 0, uGB}, "gigabytes": {sUnit, 0, uGB}, "tb": {sUnit, 0, uTB},
	"terabyte": {sUnit, 0, uTB}, "terabytes": {sUnit, 0, uTB},

	"watt": {sUnit, 0, uWatt}, "watts": {sUnit, 0, uWatt}, "kw": {sUnit, 0, uKW},
	"kilowatt": {sUnit, 0, uKW}, "kilowatts": {sUnit, 0, uKW}, "mw": {sUnit, 0, uMW},
	"megawatt": {sUnit, 0, uMW}, "megawatts": {sUnit, 0, uMW}, "gw": {sUnit, 0, uGW},
	"gigawatt": {sUnit, 0, uGW}, "gigawatts": {sUnit, 0, uGW}, "kwh": {sUnit, 0, uKWh},
	"volt": {sUnit, 0, uVolt}, "volts": {sUnit, 0, uVolt}, "hz": {sUnit, 0, uHz},
	"hertz": {sUnit, 0, uHz}, "khz": {sUnit, 0, uKHz}, "mhz": {sUnit, 0, uMHz},
	"ghz": {sUnit, 0, uGHz}, "kilohertz": {sUnit, 0, uKHz}, "megahertz": {sUnit, 0, uMHz},
	"gigahertz": {sUnit, 0, uGHz}, "kv": {sUnit, 0, uKV}, "kilovolt": {sUnit, 0, uKV},
	"kilovolts": {sUnit, 0, uKV}, "amp": {sUnit, 0, uAmp}, "amps": {sUnit, 0, uAmp},
	"ampere": {sUnit, 0, uAmp}, "amperes": {sUnit, 0, uAmp}, "mah": {sUnit, 0, uMAh},
	"wh": {sUnit, 0, uWh}, "calorie": {sUnit, 0, uCalorie},
	"calories": {sUnit, 0, uCalorie}, "cal": {sUnit, 0, uCalorie}, "kcal": {sUnit, 0, uKcal},

	"people": {sCount, 0, uPeople}, "persons": {sCount, 0, uPeople},
	"person": {sCountOne, 0, uPeople}, "individuals": {sCount, 0, uPeople},
	"inhabitants": {sCount, 0, uPeople}, "residents": {sCount, 0, uPeople},
	"employees": {sCount, 0, uEmployee}, "employee": {sCountOne, 0, uEmployee},
	"students": {sCount, 0, uStudent}, "student": {sCountOne, 0, uStudent},
	"members": {sCount, 0, uMember}, "member": {sCountOne, 0, uMember},
	"children": {sCount, 0, uChild}, "child": {sCountOne, 0, uChild},
	"votes": {sCount, 0, uVote}, "vote": {sCountOne, 0, uVote},
	"episodes": {sCount, 0, uEpisode}, "episode": {sCountOne, 0, uEpisode},
	"seasons": {sCount, 0, uSeason}, "season": {sCountOne, 0, uSeason},
	"games": {sCount, 0, uGame}, "game": {sCountOne, 0, uGame},
	"goals": {sCount, 0, uGoal}, "goal": {sCountOne, 0, uGoal},
	"points": {sCount, 0, uPoint}, "point": {sCountOne, 0, uPoint},
	"pages": {sCount, 0, uPage}, "page": {sCountOne, 0, uPage},
	"copies": {sCount, 0, uCopy}, "copy": {sCountOne, 0, uCopy},
	"books": {sCount, 0, uBook}, "book": {sCountOne, 0, uBook},
	"films": {sCount, 0, uFilm}, "film": {sCountOne, 0, uFilm},
	"movies": {sCount, 0, uFilm}, "movie": {sCountOne, 0, uFilm},
	"songs": {sCount, 0, uSong}, "song": {sCountOne, 0, uSong},
	"albums": {sCount, 0, uAlbum}, "album": {sCountOne, 0, uAlbum},
	"species":   {sCount, 0, uSpecies},
	"countries": {sCount, 0, uCountry}, "country": {sCountOne, 0, uCountry},
	"states": {sCount, 0, uState}, "state": {sCountOne, 0, uState},
	"cities": {sCount, 0, uCity}, "city": {sCountOne, 0, uCity},
	"languages": {sCount, 0, uLanguage}, "language": {sCountOne, 0, uLanguage},
	"floors": {sCount, 0, uFloor}, "floor": {sCountOne, 0, uFloor},
	"storeys": {sCount, 0, uFloor}, "storey": {sCountOne, 0, uFloor},
	"stories": {sCount, 0, uFloor}, "story": {sCountOne, 0, uFloor},
	"rooms": {sCount, 0, uRoom}, "room": {sCountOne, 0, uRoom},
	"seats": {sCount, 0, uSeat}, "seat": {sCountOne, 0, uSeat},
	"beds": {sCount, 0, uBed}, "bed": {sCountOne, 0, uBed},
	"words": {sCount, 0, uWord}, "word": {sCountOne, 0, uWord},
	"patients": {sCount, 0, uPatient}, "patient": {sCountOne, 0, uPatient},
	"cases": {sCount, 0, uCase}, "case": {sCountOne, 0, uCase},
	"deaths": {sCount, 0, uDeath}, "death": {sCountOne, 0, uDeath},
	"soldiers": {sCount, 0, uSoldier}, "soldier": {sCountOne, 0, uSoldier},
	"troops": {sCount, 0, uSoldier},
	"medals": {sCount, 0, uMedal}, "medal": {sCountOne, 0, uMedal},
	"awards": {sCount, 0, uAward}, "award": {sCountOne, 0, uAward},
	"stores": {sCount, 0, uStore}, "store": {sCountOne, 0, uStore},
	"houses": {sCount, 0, uHouse}, "house": {sCountOne, 0, uHouse},
	"homes": {sCount, 0, uHouse}, "home": {sCountOne, 0, uHouse},
	"cars": {sCount, 0, uCar}, "car": {sCountOne, 0, uCar},
	"vehicles": {sCount, 0, uCar}, "vehicle": {sCountOne, 0, uCar},
	"users": {sCount, 0, uUser}, "user": {sCountOne, 0, uUser},

	"dollar": {sCurrency, 0, uUSD}, "dollars": {sCurrency, 0, uUSD},
	"usd": {sCurrency, 0, uUSD}, "bucks": {sCurrency, 0, uUSD},
	"euro": {sCurrency, 0, uEUR}, "euros": {sCurrency, 0, uEUR}, "eur": {sCurrency, 0, uEUR},
	"gbp": {sCurrency, 0, uGBP}, "quid": {sCurrency, 0, uGBP},
	"yen": {sCurrency, 0, uJPY}, "jpy": {sCurrency, 0, uJPY},
	"rupee": {sCurrency, 0, uINR}, "rupees": {sCurrency, 0, uINR}, "inr": {sCurrency, 0, uINR},
	"yuan": {sCurrency, 0, uCNY}, "renminbi": {sCurrency, 0, uCNY},
	"rmb": {sCurrency, 0, uCNY}, "cny": {sCurrency, 0, uCNY},
	"franc": {sCurrency, 0, uCHF}, "francs": {sCurrency, 0, uCHF}, "chf": {sCurrency, 0, uCHF},
	"aud": {sCurrency, 0, uAUD}, "cad": {sCurrency, 0, uCAD}, "nzd": {sCurrency, 0, uNZD},
	"hkd": {sCurrency, 0, uHKD}, "sgd": {sCurrency, 0, uSGD},
	"cent": {sCent, 0, uUSD}, "cents": {sCent, 0, uUSD},
	"pound": {sPound, 0, ""}, "pounds": {sPound, 0, ""}, "sterling": {sSterling, 0, uGBP},

	"percent": {sPercent, 0, uPercent}, "pct": {sPercent, 0, uPercent},
	"per": {sPer, 0, ""}, "percentage": {sPercentage, 0, ""},

	"thousand": {sScale, 3, ""}, "million": {sScale, 6, ""}, "billion": {sScale, 9, ""},
	"trillion": {sScale, 12, ""}, "bn": {sScale, 9, ""}, "mn": {sScale, 6, ""},
	"mln": {sScale, 6, ""}, "tn": {sScale, 12, ""}, "lakh": {sScale, 5, ""},
	"lakhs": {sScale, 5, ""}, "crore": {sScale, 7, ""}, "crores": {sScale, 7, ""},
	"hundred": {sHundred, 2, ""}, "dozen": {sDozen, 0, ""},

	"square": {sSquare, 0, ""}, "sq": {sSquare, 0, ""},
	"us":   {sUS, 0, ""},
	"noon": {sNoon, 0, ""}, "midday": {sNoon, 0, ""}, "midnight": {sMidnight, 0, ""},
}

// generalShape has bit len(w) set in [first&31][last&31] for every key w
// of generalWords; most words of running text fail this test and skip the
// table lookup. An ASCII letter masked with 31 gives 1..26 in either case,
// and the mask lets the compiler drop the bounds checks.
var generalShape [32][32]uint16

func init() {
	for w := range generalWords {
		if len(w) > 15 {
			panic("quant: generalWords key " + w + " is too long for generalShape")
		}
		generalShape[w[0]&31][w[len(w)-1]&31] |= 1 << len(w)
	}
}

// maybeGeneral reports whether the word w of ASCII letters may be a key of
// generalWords; when it reports false, lookupGeneral(w) is wordInfo{}.
func maybeGeneral(w string) bool {
	return len(w) > 0 && generalShape[w[0]&31][w[len(w)-1]&31]&(1<<len(w)) != 0
}

// lookupGeneral classifies a word of running text, case-insensitively.
// w must consist of ASCII letters. It runs once for every word of every
// text, so after the shape test it reads generalTable, not the map.
func lookupGeneral(w string) wordInfo {
	if len(w) == 0 || len(w) > 13 || !isLetter(w[0]) || !isLetter(w[len(w)-1]) || !maybeGeneral(w) {
		return wordInfo{}
	}
	return probeGeneral(w)
}

// probeGeneral is lookupGeneral without its quick rejections, for a word
// of one or more ASCII letters that letters has already found may be a
// key (see maybeTable).
func probeGeneral(w string) wordInfo {
	for j := shapeHash(w) & generalMask; ; j = (j + 1) & generalMask {
		e := &generalTable[j]
		if e.key == "" {
			return wordInfo{}
		}
		if len(e.key) == len(w) && eqLetters(w, e.key) {
			return e.info
		}
	}
}

// generalTable holds generalWords in open addressing on shapeHash, with
// enough room that probe runs stay short.
var generalTable [1024]struct {
	key  string
	info wordInfo
}

const generalMask = uint32(len(generalTable) - 1)

func init() {
	if 2*len(generalWords) > len(generalTable) {
		panic("quant: generalTable is too small")
	}
	for w, info := range generalWords {
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				panic("quant: generalWords key " + w + " is not lower-case ASCII letters")
			}
		}
		j := shapeHash(w) & generalMask
		for generalTable[j].key != "" {
			j = (j + 1) & generalMask
		}
		generalTable[j].key, generalTable[j].info = w, info
	}
}

// shapeHash hashes a non-empty word of ASCII letters, case-insensitively,
// on its length and its first, second and last letters: cheaper than
// hashing every byte, and enough to spread the keys of generalWords.
func shapeHash(w string) uint32 {
	h := uint32(len(w))
	h = h*31 + uint32(w[0]|0x20)
	h = h*31 + uint32(w[len(w)/2]|0x20)
	h = h*31 + uint32(w[len(w)-1]|0x20)
	return h * 0x9E3779B1 >> 16
}

// eqLetters reports whether the word w of ASCII letters equals the
// lower-case word t of the same length, ignoring case. (For an ASCII letter
// b, b|0x20 is its lower case; no other byte maps to a letter that way.)
func eqLetters(w, t string) bool {
	for i := 0; i < len(t) && i < len(w); i++ {
		if w[i]|0x20 != t[i] {
			return false
		}
	}
	return true
}

// shortTable classifies a word of one to eight ASCII letters from its
// shortKey, in one probe and without reading the text again: letters has
// the word's bytes in a register already. It holds every key of
// generalWords of up to eight letters, and the articleTails. The
// slot of a key is its top shortBits bits after a multiplication by
// shortMul, a multiplier chosen so that no two keys share a slot (a
// perfect hash): a word whose slot holds another key is no key at all.
var shortTable [1 << shortBits]shortEntry

const shortBits = 10

// shortMul separates the keys of shortTable. If the word lists change and
// it no longer does, init panics with one that does, to put here.
const shortMul = 0xcf8aa4f622b6f713

type shortEntry struct {
	key uint64
	cls wclass
	// tail marks a word after which "a"/"an" may be more than a plain
	// word (see numberWord): "hundred", "thousand", "dozen" and the other
	// magnitude words, the fraction words fractionDenom reads and the
	// period words periodUnit reads. plainArticle relies on it.
	tail bool
	val  int32
}

// articleTails lists the words, besides the magnitude words of
// generalWords, after which numberWord reads "a"/"an" as more than a plain
// word: fractionDenom's ("a third", "a quarter"; it drops one final "s"
// from any word but "halves", so that "halvess" is one too) and
// periodUnit's ("an hour"). TestShortTable holds it to those two
// functions.
var articleTails = []string{
	"half", "halfs", "halves", "halvess", "third", "thirds", "quarter", "quarters",
	"fourth", "fourths", "fifth", "fifths", "sixth", "sixths", "seventh",
	"sevenths", "eighth", "eighths", "ninth", "ninths", "tenth", "tenths",
	"minute", "hour", "day", "week", "month", "year", "decade", "century",
}

// shortKey packs the word w of one to eight ASCII letters into a uint64,
// lower-cased, its first byte lowest: the key of shortTable. (The unused
// high bytes are zero, and no letter is, so words of different lengths
// have different keys.)
func shortKey(w string) uint64 {
	var k uint64
	for i := len(w) - 1; i >= 0; i-- {
		k = k<<8 | uint64(w[i]|0x20)
	}
	return k
}

// loadedKey is shortKey for the word of n letters (1 <= n <= 8) that
// starts the eight bytes x read little-endian (load64): b|0x20 lower-cases
// a letter, and the mask keeps the word's n bytes.
func loadedKey(x uint64, n int) uint64 {
	return (x | 0x2020202020202020) & keyMask[n&15]
}

// keyMask[n] keeps the low n bytes of a uint64, for n up to 8: a table,
// as a shift by a variable count (^0 >> (64-8n)) ties up register CX.
var keyMask = [16]uint64{
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff,
	0xffffffffffffff, 0xffffffffffffffff,
}

// probeShort returns the entry of shortTable for key, the zero entry (of
// class wNone) if key is no word it holds.
func probeShort(key uint64) shortEntry {
	if e := shortTable[key*shortMul>>(64-shortBits)]; e.key == key {
		return e
	}
	return shortEntry{}
}

// shortWord is a word to put in shortTable.
type shortWord struct {
	key  uint64
	info wordInfo
	tail bool
}

// shortWords returns the words that shortTable holds, each once.
func shortWords() []shortWord {
	var words []shortWord
	seen := map[string]bool{}
	for w, info := range generalWords {
		seen[w] = true
		if len(w) <= 8 {
			tail := info.cls == wHundred || info.cls == wScale || info.cls == wDozen
			words = append(words, shortWord{shortKey(w), info, tail})
		}
	}
	for _, w := range articleTails {
		if len(w) > 8 {
			panic("quant: article tail " + w + " is longer than eight letters")
		}
		if _, ok := generalWords[w]; !ok {
			if seen[w] {
				panic("quant: article tail " + w + " is listed twice")
			}
			seen[w] = true
			words = append(words, shortWord{key: shortKey(w), tail: true})
			continue
		}
		for k := range words {
			if words[k].key == shortKey(w) {
				words[k].tail = true
			}
		}
	}
	return words
}

// separates reports whether the multiplier mul sends the keys of words to
// different slots of shortTable.
func separates(words []shortWord, mul uint64) bool {
	var used [1 << shortBits]bool
	for _, w := range words {
		h := w.key * mul >> (64 - shortBits)
		if used[h] {
			return false
		}
		used[h] = true
	}
	return true
}

func init() {
	words := shortWords()
	if !separates(words, shortMul) {
		// The word lists have changed: name a multiplier that works.
		seed := uint64(shortMul)
		for range 1 << 22 {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			if separates(words, seed|1) {
				panic(fmt.Sprintf("quant: shortMul no longer separates the keys of shortTable; %#x does", seed|1))
			}
		}
		panic("quant: no multiplier separates the keys of shortTable; make shortBits larger")
	}
	for _, w := range words {
		shortTable[w.key*shortMul>>(64-shortBits)] = shortEntry{key: w.key, cls: w.info.cls, tail: w.tail, val: w.info.val}
	}
}

// lookupSuffix classifies a word that follows a number. Single letters and a
// few all-caps abbreviations are case-sensitive ("m" metre vs "M" million,
// "g" gram vs "G"); everything else is case-insensitive.
func lookupSuffix(w string) sfxInfo {
	switch len(w) {
	case 0:
		return sfxInfo{}
	case 1:
		switch w[0] {
		case 'm':
			return sfxInfo{sMetreMillion, 0, uM}
		case 'M':
			return sfxInfo{sMega, 6, ""}
		case 'B':
			return sfxInfo{sBillionCtx, 9, ""}
		case 'k', 'K':
			return sfxInfo{sScale, 3, ""}
		case 'g':
			return sfxInfo{sUnit, 0, uG}
		case 'h':
			return sfxInfo{sUnit, 0, uHour}
		case 's':
			return sfxInfo{sUnit, 0, uSecond}
		case 'l', 'L':
			return sfxInfo{sUnit, 0, uLiter}
		case 'W':
			return sfxInfo{sUnit, 0, uWatt}
		case 'V':
			return sfxInfo{sUnit, 0, uVolt}
		case 'A':
			return sfxInfo{sUnit, 0, uAmp}
		case 'C':
			return sfxInfo{sUnit, 0, uCelsius}
		case 'F':
			return sfxInfo{sUnit, 0, uFahrenheit}
		}
		return sfxInfo{}
	case 2, 3:
		if isUpper(w[0]) && isUpper(w[1]) {
			switch w {
			case "BC", "BCE":
				return sfxInfo{sEraBC, 0, ""}
			case "AD", "CE":
				return sfxInfo{sEraAD, 0, ""}
			case "US":
				return sfxInfo{sUS, 0, ""}
			}
		}
	}
	if len(w) > 13 {
		return sfxInfo{}
	}
	if !hasUpper(w) {
		return suffixWords[w]
	}
	var buf [16]byte
	for i := 0; i < len(w); i++ {
		buf[i] = lower(w[i])
	}
	return suffixWords[string(buf[:len(w)])]
}

// letterUnitOK vets the one-letter units W, V, A, C and F, which are also
// identifiers and initials: "A", "C" and "F" glued to the number are models,
// isotopes and forms ("Type 35C", "13C", "Form 10A"), and any of them before
// an abbreviation dot is an initial or an abbreviation ("166 C.E.", "37
// C.F.R.", "229 F. Supp.", "525 W. Ottawa St.") — unless the text ends
// there or goes on in lower case. we is where the letter ends.
func letterUnitOK(s string, b byte, we int, attached bool) bool {
	switch b {
	case 'A', 'C', 'F':
		if attached {
			return false
		}
	case 'W', 'V':
	default:
		return true
	}
	if we >= len(s) {
		return true
	}
	if s[we] != '.' {
		// Not before a capitalised word ("1600 W Main St", "185 C The
		// Use", "Star 242 A Java"); "A" before no word at all, as it is
		// also the article after a number that lost its period ("8 A
		// stoichiometry").
		p := we
		for p < len(s) && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r') {
			p++
		}
		return p == we || p >= len(s) || !isLetter(s[p]) || b != 'A' && !isUpper(s[p])
	}
	k := we + 1
	if k < len(s) && isLetter(s[k]) {
		return false
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
		k++
	}
	return k >= len(s) || !isUpper(s[k])
}

// maybeCode reports whether codeMoney may read the word w, of ASCII
// letters, as a currency code: codePrefix knows only three capitals and
// "Rs".
func maybeCode(w string) bool {
	return len(w) == 3 && isUpper(w[0]) && isUpper(w[1]) && isUpper(w[2]) || w == "Rs"
}

// tableShape has bit n&15 set in [first&63][last&63] for every word of n
// letters that may pass maybeGeneral or maybeCode, so that letters tests
// both at once from a word's ends and length. An ASCII letter masked with
// 63 keeps its case: 1..26 upper, 33..58 lower. A word of 16 letters or
// more may pass too (its length wraps); none is a key, so it costs only a
// lookup.
var tableShape [64][64]uint16

func init() {
	for w := range generalWords {
		// maybeGeneral ignores case.
		for _, a := range []byte{w[0], w[0] - 32} {
			for _, z := range []byte{w[len(w)-1], w[len(w)-1] - 32} {
				tableShape[a&63][z&63] |= 1 << len(w)
			}
		}
	}
	for a := byte('A'); a <= 'Z'; a++ {
		for z := byte('A'); z <= 'Z'; z++ {
			tableShape[a&63][z&63] |= 1 << 3
		}
	}
	tableShape['R'&63]['s'&63] |= 1 << 2
}

// maybeTable is maybeGeneral(w) || maybeCode(w), with some false positives,
// for the word w of n ASCII letters that starts with first and ends with
// last.
func maybeTable(first, last byte, n int) bool {
	return uint32(tableShape[first&63][last&63])>>(n&15)&1 != 0
}

// dollarPrefix maps the letters glued before '$' ("US$", "A$") to a currency.
func dollarPrefix(w string) string {
	switch w {
	case "US":
		return uUSD
	case "A", "AU":
		return uAUD
	case "C", "CA":
		return uCAD
	case "NZ":
		return uNZD
	case "HK":
		return uHKD
	case "S":
		return uSGD
	}
	return ""
}

// codePrefix maps an upper-case currency code written before a number
// ("USD 5", "Rs. 500") to a currency.
func codePrefix(w string) string {
	switch w {
	case "USD":
		return uUSD
	case "EUR":
		return uEUR
	case "GBP":
		return uGBP
	case "JPY":
		return uJPY
	case "INR", "Rs":
		return uINR
	case "CNY", "RMB":
		return uCNY
	case "CHF":
		return uCHF
	case "AUD":
		return uAUD
	case "CAD":
		return uCAD
	case "NZD":
		return uNZD
	case "HKD":
		return uHKD
	case "SGD":
		return uSGD
	}
	return ""
}

// areaOf returns the square unit for a length unit ("km" → "km2").
func areaOf(u string) string {
	switch u {
	case uKm:
		return uKm2
	case uM:
		return uM2
	case uMile:
		return uMi2
	case uFoot:
		return uFt2
	}
	return ""
}

// fractionDenom returns the denominator named by a fraction word ("third",
// "thirds", "quarter", "half"), or 0.
func fractionDenom(w string) int {
	if len(w) < 4 || len(w) > 8 {
		return 0
	}
	var buf [8]byte
	n := len(w)
	for i := 0; i < n; i++ {
		buf[i] = lower(w[i])
	}
	if buf[n-1] == 's' && string(buf[:n]) != "halves" {
		n--
	}
	switch string(buf[:n]) {
	case "half", "halves":
		return 2
	case "third":
		return 3
	case "quarter", "fourth":
		return 4
	case "fifth":
		return 5
	case "sixth":
		return 6
	case "seventh":
		return 7
	case "eighth":
		return 8
	case "ninth":
		return 9
	case "tenth":
		return 10
	}
	return 0
}
