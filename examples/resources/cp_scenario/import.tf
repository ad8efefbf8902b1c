import {
  to = cp_scenario.orders_db
  id = "postgresql/orders-db@10.0.0.11"
}
