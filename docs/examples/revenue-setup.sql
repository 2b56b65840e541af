CREATE TEMP VIEW orders AS
  SELECT id AS o_id, id % 2000000 AS o_customer, CAST(id % 997 AS DECIMAL(12, 2)) AS o_total
  FROM range(10000000);
CREATE TEMP VIEW customers AS
  SELECT id AS c_id, concat('customer ', id) AS c_name, CAST(id % 25 AS INT) AS c_nation
  FROM range(2000000);
CREATE TEMP VIEW nations AS
  SELECT * FROM VALUES (0, 'FRANCE'), (1, 'GERMANY'), (2, 'JAPAN') AS n(n_id, n_name);
