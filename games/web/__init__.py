"""Pages and the REST API (views, api, forms, their urls): may import services and every room below."""
