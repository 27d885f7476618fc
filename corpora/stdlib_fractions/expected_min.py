class Fraction:
    def __new__(cls, numerator=0, denominator=None):
        self = super(Fraction, cls).__new__(cls)
        self._numerator = numerator
        self._denominator = denominator
        return self

    def limit_denominator(self, max_denominator=1000000):
        p0, q0, p1, q1 = 0, 1, 1, 0
        n, d = self._numerator, self._denominator
        while True:
            a = n//d
            q2 = q0+a*q1
            if q2 > max_denominator:
                break
            p0, q0, p1, q1 = p1, q1, p0+a*p1, q2
            n, d = d, n-a*d
        k = (max_denominator-q1)//q1
        return Fraction(p0+k*p1, q0+k*q1)

    def __str__(self):
        return '%s/%s' % (self._numerator, self._denominator)


got = Fraction(3141592653589793, 1000000000000000).limit_denominator(100)
assert False, f"My Test: got {got}"
