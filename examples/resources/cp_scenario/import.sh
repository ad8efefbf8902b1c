# [id@]address[:port] of a host that keeps the resource's intent record
tofu import cp_scenario.orders_db postgresql/orders-db@10.0.0.11
