// policyc ordinary sample: an everyday SwiftUI view (List, task, refreshable, previews).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/swift/ to measure rule breadth.

import SwiftUI

struct ForecastView: View {
    @StateObject private var store: WeatherStore
    @State private var city = "Berlin"

    init(service: WeatherService) {
        _store = StateObject(wrappedValue: WeatherStore(service: service))
    }

    var body: some View {
        NavigationStack {
            List {
                Section {
                    TextField("City", text: $city)
                        .textInputAutocapitalization(.words)
                        .submitLabel(.search)
                        .onSubmit { Task { await store.load(city: city) } }
                }

                if let message = store.errorMessage {
                    Section {
                        Label(message, systemImage: "exclamationmark.triangle")
                            .foregroundStyle(.red)
                    }
                }

                Section("Next days") {
                    ForEach(store.forecasts) { forecast in
                        ForecastRow(forecast: forecast, isWarmest: forecast == store.warmest)
                    }
                }
            }
            .overlay {
                if store.isLoading && store.forecasts.isEmpty {
                    ProgressView("Loading forecast…")
                }
            }
            .navigationTitle("Weather")
            .refreshable { await store.load(city: city) }
            .task { await store.load(city: city) }
        }
    }
}

struct ForecastRow: View {
    let forecast: Forecast
    let isWarmest: Bool

    var body: some View {
        HStack {
            VStack(alignment: .leading) {
                Text(forecast.date, format: .dateTime.weekday(.wide).day().month())
                    .font(.headline)
                Text(forecast.summary)
                    .font(.subheadline)
                    .foregroundStyle(.secondary)
            }
            Spacer()
            Text(forecast.temperature, format: .number.precision(.fractionLength(0)))
                .font(.title2.monospacedDigit())
            + Text("°")
            if isWarmest {
                Image(systemName: "sun.max.fill")
                    .foregroundStyle(.orange)
                    .accessibilityLabel("Warmest day")
            }
        }
        .padding(.vertical, 4)
    }
}

#Preview {
    ForecastView(service: HTTPWeatherService(baseURL: URL(string: "https://example.com/api")!))
}
