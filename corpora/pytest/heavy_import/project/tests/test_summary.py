from stats.summary import chart, five_numbers, histogram, outliers

MEASURED = [2.0, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 30.0]


def test_five_numbers():
    assert five_numbers([1, 2, 3, 4, 5]) == (1.0, 2.0, 3.0, 4.0, 5.0)


def test_outliers_are_far_from_the_quartiles():
    assert outliers(MEASURED) == [30.0]


def test_histogram_has_the_bins_asked_for():
    assert len(histogram(MEASURED, bins=4)) == 4


def test_chart_is_written(tmp_path):
    chart(MEASURED, str(tmp_path / "box.png"))
    assert (tmp_path / "box.png").stat().st_size > 0
