from orders import customer_page, export_daily_totals, totals_by_region


def test_totals_by_region(orders):
    rows = totals_by_region(orders).collect()
    assert [(r.region, r.total) for r in rows] == [
        ("east", 200.0), ("north", 165.5), ("south", 80.0)]


def test_export_daily_totals(spark, orders, tmp_path):
    export_daily_totals(orders, str(tmp_path / "daily"))
    assert spark.read.parquet(str(tmp_path / "daily")).count() == 2


def test_customer_page_renders(orders, optimizer_extension):
    """A smoke test: whatever the data, the page is HTML."""
    page = customer_page(orders)
    assert page.startswith("<") and page.endswith(">")
