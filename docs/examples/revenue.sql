SELECT n.n_name, count(*) AS orders, sum(o.o_total) AS revenue
FROM orders o
JOIN customers c ON o.o_customer = c.c_id
JOIN nations n ON c.c_nation = n.n_id
GROUP BY n.n_name
ORDER BY revenue DESC
