# Admin registrations for the account models arrive with the models themselves.
